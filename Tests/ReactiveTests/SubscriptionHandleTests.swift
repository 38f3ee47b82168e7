import Testing

@testable import Reactive

@Suite struct SubscriptionHandleTests {
  @Test func anEndedIteratorLeavingLaterDoesNotUnregisterANewerOne() async {
    let box = ReactiveBox(0)
    var ended: ReactiveBox<Int>.Values.Iterator? = box.values.makeAsyncIterator()
    box.finish()
    #expect(await ended?.next() == 0)
    #expect(await ended?.next() == nil)
    #expect(box.subscriberCount == 0)
    let newer = box.values.makeAsyncIterator()
    #expect(box.subscriberCount == 1)
    ended = nil
    #expect(box.subscriberCount == 1)
    withExtendedLifetime(newer) {}
  }

  @Test func aBoundedPolicyWithoutRoomIsNamed() {
    // `values(buffering:)` stops the program with this message; the check itself is tested here.
    #expect(BufferingPolicy.bounded(0).problem == "BufferingPolicy.bounded(0) needs a limit of at least 1")
    #expect(BufferingPolicy.bounded(-3).problem != nil)
    #expect(BufferingPolicy.bounded(1).problem == nil)
    #expect(BufferingPolicy.all.problem == nil)
  }
}
