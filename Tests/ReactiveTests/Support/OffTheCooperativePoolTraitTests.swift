import TestSupport
import Testing

/// The trait that keeps long searches off Swift's cooperative pool really moves the test's body.
@Suite(.offTheCooperativePool) struct OffTheCooperativePoolTraitTests {
  @Test func aTestBodyRunsOnAQueueOfItsOwn() {
    #expect(isOffTheCooperativePool)
  }

  @Test func anAsyncTestBodyStaysOnItAfterSuspending() async {
    await Task.yield()
    #expect(isOffTheCooperativePool)
  }
}
