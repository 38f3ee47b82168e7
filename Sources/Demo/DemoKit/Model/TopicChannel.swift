import Foundation
import SharedState

/// One message on a topic.
struct TopicEvent<T: Sendable & Equatable>: Sendable, Equatable {
  var payload: T
  var sender: String
  /// Whether the server confirmed it (an optimistic local event is not confirmed yet).
  var isConfirmed: Bool
}

/// A live topic every screen shares: the latest event, the connection, and how the latest publish went.
struct TopicChannel<T: Sendable & Equatable>: OperationTrackable, Equatable {
  var latestEvent: TopicEvent<T>?
  var isConnected = false
  /// How the latest publish went.
  var operation = OperationTracking()

  var hasEvent: Bool { latestEvent != nil }

  mutating func applySuccess(_ event: TopicEvent<T>) {
    latestEvent = event
  }
}

extension Shared {
  /// Publishes `payload`, showing it at once as an unconfirmed event; rolls the event back if the publish fails.
  @discardableResult
  func publish<T: Sendable & Equatable>(
    _ payload: T,
    as sender: String,
    isolation: isolated (any Actor)? = #isolation,
    onAttempt: ((T) -> Void)? = nil,
    onSuccess: (() -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<Void, any Error>) -> Void)? = nil
  ) -> OperationTask<TopicEvent<T>> where Value == TopicChannel<T> {
    let backend = DemoEnvironment.current.content
    let previous = wrappedValue.latestEvent
    let local = TopicEvent(payload: payload, sender: sender, isConfirmed: false)
    return run(
      optimistic: OptimisticUpdate(
        apply: { $0.latestEvent = local },
        rollback: { channel in if channel.latestEvent == local { channel.latestEvent = previous } }),
      isolation: isolation,
      { try await backend.publish(payload, sender: sender) },
      onAttempt: { onAttempt?(payload) }, onSuccess: { _ in onSuccess?() }, onError: onError,
      onSettled: { result in onSettled?(result.map { _ in () }) })
  }
}
