import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Runs `action` when freed.
final class DeinitAction: Sendable {
  let action: @Sendable () -> Void

  init(_ action: @escaping @Sendable () -> Void) {
    self.action = action
  }

  deinit { action() }
}

/// A value that may run code when the library lets go of it.
struct Releasing: Sendable {
  var number: Int
  var onRelease: DeinitAction?
}

/// An error that runs code when the library lets go of it.
final class ReleasingError: Error, Sendable {
  let onRelease: DeinitAction

  init(_ action: @escaping @Sendable () -> Void) {
    onRelease = DeinitAction(action)
  }
}

/// A key that hands its context, stored value and errors to the test.
struct ContextKey: SharedKey {
  typealias Value = Releasing
  let name: String
  let store: Store

  final class Store: Sendable {
    let context = Lock<SharedKeyContext<Releasing>?>(nil)
    let stored = Lock<Releasing?>(nil)
    let loadError = Lock<ReleasingError?>(nil)
    let saveErrors = Lock<[ReleasingError]>([])
    let holder = Lock<Shared<Releasing>?>(nil)
  }

  var id: String { name }

  func load(context: SharedKeyContext<Releasing>, continuation: SharedLoadContinuation<Releasing>) {
    store.context.withLock { $0 = context }
    if let error = store.loadError.withLock({ $0.take() }) { return continuation.resume(throwing: error) }
    continuation.resume(returning: store.stored.withLock { $0 })
  }

  func save(_ value: Releasing, context: SharedKeyContext<Releasing>) async throws {
    if let error = store.saveErrors.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw error }
  }
}
