import Observation
import Synchronization
import TestSupport
import Testing

@testable import Reactive

@Suite struct ObservationTests {
  @Test func trackingIsDetectedOnThisPlatform() {
    #expect(ObservationProbe.trackingIsDetectable)
  }

  @Test func anUntrackedBoxHasNoRegistrar() {
    let box = ReactiveBox(0)
    _ = box.value
    box.withLock { $0 += 1 }
    #expect(!box.isTracked)
    #expect(box.state.withLock { $0.observation.registrar == nil })
  }

  /// The marker is also hashed outside reads: when a tracked box tells its registrar of a change, and whenever
  /// anything hashes the key path. Neither makes this thread's next read of an untracked box a tracked one.
  @Test func theMarkerHashedOutsideAReadDoesNotTrackTheNextRead() {
    let tracked = ReactiveBox(0)
    _ = withObservationTracking {
      tracked.value
    } onChange: {
    }
    tracked.withLock { $0 += 1 }
    let box = ReactiveBox(0)
    _ = box.value
    _ = tracked.observationKeyPath.hashValue
    let other = ReactiveBox(0)
    _ = other.value
    #expect(!box.isTracked)
    #expect(!other.isTracked)
  }

  /// Tracking on other threads, racing with this thread's reads, never gives this thread's untracked box a
  /// registrar.
  @Test func anotherThreadsTrackingDoesNotTrackThisThreadsReads() async {
    let stop = Atomic<Bool>(false)
    let tracker = Task.detached {
      var rounds = 0
      while !stop.load(ordering: .relaxed) || rounds == 0 {
        let box = ReactiveBox(rounds)
        _ = withObservationTracking {
          box.value
        } onChange: {
        }
        rounds += 1
        if rounds % 64 == 0 { await Task.yield() }
      }
      return rounds
    }
    let box = ReactiveBox(0)
    for round in 0..<20_000 {
      _ = box.value
      if round % 256 == 0 { await Task.yield() }
    }
    stop.store(true, ordering: .relaxed)
    _ = await tracker.value
    #expect(!box.isTracked)
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
    #expect(box.isTracked)
  }

  /// Once tracked, a box reads through its own registrar: a later tracking hears of its next change, and the read
  /// leaves the reading thread's spare registrar where it was.
  @Test func aTrackedBoxReadInALaterTrackingReportsItsNextChange() {
    let box = ReactiveBox(0)
    _ = withObservationTracking {
      box.value
    } onChange: {
    }
    // Ends that tracking; an untracked read gives this thread a spare again.
    box.withLock { $0 += 1 }
    _ = ReactiveBox(0).value
    let spare = ObservationProbe.shared.existingSpare()?.toOpaque()
    let changed = Atomic<Int>(0)
    let read = withObservationTracking {
      box.value
    } onChange: {
      changed.add(1, ordering: .relaxed)
    }
    #expect(read == 1)
    #expect(spare != nil && ObservationProbe.shared.existingSpare()?.toOpaque() == spare)
    box.withLock { $0 += 1 }
    #expect(count(changed) == 1)
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

  /// Two boxes first tracked one after the other on one thread each take a spare registrar of their own: a change
  /// of one never reaches the other's tracker.
  @Test func boxesTrackedInTurnOnOneThreadDoNotShareARegistrar() {
    let first = ReactiveBox(0)
    let second = ReactiveBox(0)
    let firstChanged = Atomic<Int>(0)
    let secondChanged = Atomic<Int>(0)
    _ = withObservationTracking {
      first.value
    } onChange: {
      firstChanged.add(1, ordering: .relaxed)
    }
    _ = withObservationTracking {
      second.value
    } onChange: {
      secondChanged.add(1, ordering: .relaxed)
    }
    first.withLock { $0 += 1 }
    #expect(count(firstChanged) == 1)
    #expect(count(secondChanged) == 0)
    second.withLock { $0 += 1 }
    #expect(count(secondChanged) == 1)
  }

  @Test func aTrackedBoxFreedWithoutChangingReleasesWhatItsTrackerCaptured() {
    weak var captured: Marker?
    let changed = Atomic<Int>(0)
    do {
      let marker = Marker()
      captured = marker
      let box = ReactiveBox(0)
      _ = withObservationTracking {
        box.value
      } onChange: {
        withExtendedLifetime(marker) { _ = changed.add(1, ordering: .relaxed) }
      }
    }
    #expect(captured == nil, "a freed box still holds its tracker's onChange closure")
    // As with an @Observable object: a freed box ends its tracking silently.
    #expect(count(changed) == 0)
  }

  @Test func freeingOneTrackedBoxKeepsTheTrackingOfAnotherAlive() {
    weak var captured: Marker?
    let changed = Atomic<Int>(0)
    let kept = ReactiveBox(0)
    do {
      let marker = Marker()
      captured = marker
      let freed = ReactiveBox(0)
      _ = withObservationTracking {
        freed.value + kept.value
      } onChange: {
        withExtendedLifetime(marker) { _ = changed.add(1, ordering: .relaxed) }
      }
    }
    #expect(captured != nil, "the tracking of a box still alive was dropped")
    kept.withLock { $0 += 1 }
    #expect(count(changed) == 1)
    #expect(captured == nil, "a tracking that fired was kept")
  }

  @Test func manyShortLivedTrackedBoxesReleaseEveryTracker() {
    let released = Counter()
    for _ in 0..<1_000 {
      let token = ReleaseCounter(released)
      let box = ReactiveBox(0)
      _ = withObservationTracking {
        box.value
      } onChange: {
        withExtendedLifetime(token) {}
      }
    }
    #expect(released.count == 1_000)
  }

  /// Two threads' first tracked reads of one box race: the loser's spare registrar, which its tracking registered
  /// with, is kept beside the box's registrar and ends with the box.
  @Test func aSpareThatLostTheRaceToBecomeTheRegistrarEndsWithTheBox() {
    weak var captured: Marker?
    let changed = Atomic<Int>(0)
    do {
      let marker = Marker()
      captured = marker
      let box = ReactiveBox(0)
      _ = box.trackedRead(through: RegistrarHolder())
      let spare = RegistrarHolder()
      _ = withObservationTracking {
        spare.registrar.access(box, keyPath: box.observationKeyPath)
        return box.trackedRead(through: spare)
      } onChange: {
        withExtendedLifetime(marker) { _ = changed.add(1, ordering: .relaxed) }
      }
      let kept = box.state.withLock { state -> Int? in
        guard case .tracked(_, let kept) = state.observation else { return nil }
        return kept.count
      }
      #expect(kept == 1)
      #expect(captured != nil)
    }
    #expect(captured == nil, "a kept spare outlived its box")
    #expect(count(changed) == 0)
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

/// Counts its own deinit.
private final class ReleaseCounter: Sendable {
  let counter: Counter

  init(_ counter: Counter) {
    self.counter = counter
  }

  deinit {
    counter.increment()
  }
}

private func count(_ atomic: borrowing Atomic<Int>) -> Int {
  atomic.load(ordering: .relaxed)
}
