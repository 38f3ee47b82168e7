import Observation
import SharedState
import Synchronization
import Testing

/// The view-model pattern of the getting-started article: `@Shared` inside an `@Observable` class
/// needs `@ObservationIgnored` (both macros would otherwise synthesize `_session`), and observation still works,
/// through the shared value itself.
@Observable
final class SessionModel {
  @ObservationIgnored @Shared(.inMemory("session-user")) var userName = "guest"
  var draft = ""

  func rename() {
    $userName.withLock { $0 = draft }
  }
}

extension SharedTests {
  @Test func aViewModelsObserversSeeAChangeMadeThroughAnotherHolder() {
    let model = SessionModel()
    let changed = Atomic<Int>(0)
    let seen = withObservationTracking {
      model.userName
    } onChange: {
      changed.add(1, ordering: .relaxed)
    }
    #expect(seen == "guest")

    @Shared(.inMemory("session-user")) var elsewhere = ""
    $elsewhere.withLock { $0 = "ada" }

    #expect(changed.load(ordering: .relaxed) == 1)
    #expect(model.userName == "ada")
  }

  @Test func aViewModelsOwnWriteIsSeenByItsObserversAndEveryHolder() {
    let model = SessionModel()
    model.draft = "grace"
    let changed = Atomic<Int>(0)
    _ = withObservationTracking {
      model.userName
    } onChange: {
      changed.add(1, ordering: .relaxed)
    }

    model.rename()

    @Shared(.inMemory("session-user")) var elsewhere = ""
    #expect(changed.load(ordering: .relaxed) == 1)
    #expect(elsewhere == "grace")
  }

  /// Observation of the model's own stored properties is untouched by the ignored shared one.
  @Test func theModelsOwnPropertiesAreStillObserved() {
    let model = SessionModel()
    let changed = Atomic<Int>(0)
    _ = withObservationTracking {
      model.draft
    } onChange: {
      changed.add(1, ordering: .relaxed)
    }
    model.draft = "x"
    #expect(changed.load(ordering: .relaxed) == 1)
  }
}
