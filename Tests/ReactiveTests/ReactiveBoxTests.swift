import TestSupport
import Testing

@testable import Reactive

@Suite struct ReactiveBoxTests {
  @Test func readsTheInitialValue() {
    let box = ReactiveBox("hello")
    #expect(box.value == "hello")
    #expect(box.version == 0)
  }

  @Test func withLockChangesInPlaceAndReturnsTheBodysResult() {
    let box = ReactiveBox([1, 2, 3])
    let count = box.withLock { numbers -> Int in
      numbers.append(4)
      return numbers.count
    }
    #expect(count == 4)
    #expect(box.value == [1, 2, 3, 4])
  }

  @Test func withLockDoesNotCopyTheValue() {
    let box = ReactiveBox([0])
    // Append many times: with a copy per call this would reallocate every time; in place, the buffer stays unique.
    let identityBefore = box.withLock { $0.withUnsafeBufferPointer { $0.baseAddress } }
    box.withLock { $0[0] = 42 }
    let identityAfter = box.withLock { $0.withUnsafeBufferPointer { $0.baseAddress } }
    #expect(identityBefore == identityAfter)
    #expect(box.value == [42])
  }

  @Test func versionGrowsByOnePerWithLock() {
    let box = ReactiveBox(0)
    for expected in 1...5 {
      box.withLock { $0 += 1 }
      #expect(box.version == UInt64(expected))
    }
    box.withLock { _ in }
    #expect(box.version == 6)
  }

  struct Refused: Error, Equatable {}

  @Test func aThrowingBodyKeepsItsWritesNotifiesAndRethrows() {
    let box = ReactiveBox(0)
    let seen = Collector<Int>()
    let token = box.observe { seen.append($0) }
    #expect(throws: Refused.self) {
      try box.withLock { value in
        value = 7
        throw Refused()
      }
    }
    #expect(box.value == 7)
    #expect(box.version == 1)
    #expect(seen.elements == [7])
    token.cancel()
  }

  @Test func typedThrowsReachTheCaller() {
    let box = ReactiveBox(0)
    do {
      try box.withLock { (_: inout Int) throws(Refused) in throw Refused() }
      Issue.record("expected an error")
    } catch {
      #expect(error == Refused())
    }
  }

  @Test func concurrentWritersLoseNoUpdate() async {
    let box = ReactiveBox(0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<10_000 { box.withLock { $0 += 1 } }
        }
      }
    }
    #expect(box.value == 80_000)
    #expect(box.version == 80_000)
  }

  @Test func isFreedWhenTheLastReferenceGoes() {
    weak var weakBox: ReactiveBox<Int>?
    do {
      let box = ReactiveBox(1)
      weakBox = box
      box.withLock { $0 += 1 }
      #expect(weakBox != nil)
    }
    #expect(weakBox == nil)
  }

  @Test func releasesTheValueWithTheBox() {
    weak var weakMarker: Marker?
    do {
      let marker = Marker()
      weakMarker = marker
      let box = ReactiveBox([marker])
      box.withLock { $0.append(Marker()) }
    }
    #expect(weakMarker == nil)
  }

  @Test func keepsOneAttachmentPerTypeAndMakesEachOnce() {
    let box = ReactiveBox(0)
    var made = 0
    let first = box.attachment(FirstAttachment.self) {
      made += 1
      return FirstAttachment()
    }
    let second = box.attachment(SecondAttachment.self) {
      made += 1
      return SecondAttachment()
    }
    let third = box.attachment(ThirdAttachment.self) {
      made += 1
      return ThirdAttachment()
    }
    // Asked again, in another order: the same objects, none made again.
    #expect(box.attachment(ThirdAttachment.self) { ThirdAttachment() } === third)
    #expect(box.attachment(FirstAttachment.self) { FirstAttachment() } === first)
    #expect(box.attachment(SecondAttachment.self) { SecondAttachment() } === second)
    #expect(made == 3)
  }

  @Test func releasesItsAttachmentsWithTheBox() {
    weak var first: FirstAttachment?
    weak var second: SecondAttachment?
    do {
      let box = ReactiveBox(0)
      first = box.attachment(FirstAttachment.self) { FirstAttachment() }
      second = box.attachment(SecondAttachment.self) { SecondAttachment() }
      #expect(first != nil && second != nil)
    }
    #expect(first == nil)
    #expect(second == nil)
  }
}

private final class FirstAttachment: Sendable {}
private final class SecondAttachment: Sendable {}
private final class ThirdAttachment: Sendable {}
