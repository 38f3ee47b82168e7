import Observation
import Synchronization
import Testing

@testable import Reactive

@Suite struct ObservationTests {
  @Test func trackingIsDetectedOnThisPlatform() {
    #expect(ObservationProbe.trackingIsDetectable)
  }

  @Test func anUntrackedBoxHasNoRegistrar() {
    let box = ReactiveBox(0)
    let hitsBefore = box.probe.hits.load(ordering: .relaxed)
    _ = box.value
    box.withLock { $0 += 1 }
    let hitsAfter = box.probe.hits.load(ordering: .relaxed)
    // Tracking in a test running at the same time moves the shared count and marks boxes read meanwhile as
    // tracked (slower, never wrong); the claim is only checkable when nothing else tracked during the reads.
    if hitsBefore == hitsAfter {
      let isTracked = box.isTracked.load(ordering: .relaxed)
      #expect(!isTracked)
      #expect(box.state.withLock { $0.registrar == nil })
    }
  }

  @Test func onChangeFiresAfterWithLock() {
    let box = ReactiveBox(0)
    let changed = Atomic<Int>(0)
    let read = withObservationTracking {
      box.value
    } onChange: {
      changed.add(1, ordering: .relaxed)
    }
    #expect(read == 0)
    #expect(count(changed) == 0)
    box.withLock { $0 += 1 }
    #expect(count(changed) == 1)
    let isTracked = box.isTracked.load(ordering: .relaxed)
    #expect(isTracked)
  }

  @Test func trackingOneBoxIgnoresAnother() {
    let tracked = ReactiveBox(0)
    let other = ReactiveBox(0)
    let changed = Atomic<Int>(0)
    _ = withObservationTracking {
      tracked.value
    } onChange: {
      changed.add(1, ordering: .relaxed)
    }
    other.withLock { $0 += 1 }
    #expect(count(changed) == 0)
    tracked.withLock { $0 += 1 }
    #expect(count(changed) == 1)
  }

  @Test func observationsSequenceSeesChanges() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) else { return }
    let box = ReactiveBox(0)
    var iterator = Observations { box.value }.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    box.withLock { $0 = 5 }
    #expect(await iterator.next() == 5)
  }
}

private func count(_ atomic: borrowing Atomic<Int>) -> Int {
  atomic.load(ordering: .relaxed)
}
