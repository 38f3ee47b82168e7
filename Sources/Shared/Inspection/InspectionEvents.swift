/// The events of a registry from the moment the sequence was made, for a devtools panel or a log.
///
/// ```swift
/// let events = SharedRegistry.current.inspector.events(bufferingNewest: 100)
/// for await event in events where event.kind.name == "fetchEnded" {
///   print(event.key)
/// }
/// ```
///
/// While a sequence of events exists, its inspector is attached: the registry's engines publish events, and keep the
/// last ones in ``SharedInspector/recentEvents``. An iteration that falls behind keeps at most the newest `limit`
/// events it was given; older ones are dropped (``SharedInspector/droppedEventCount`` counts them). The sequence ends
/// when the task iterating it is cancelled; the inspector is detached once no sequence is left. Each sequence has one
/// consumer: iterate it from one task (call ``SharedInspector/events(bufferingNewest:)`` again for another).
public struct InspectionEvents: AsyncSequence, Sendable {
  /// An event.
  public typealias Element = InspectionEvent
  /// Iterating never throws.
  public typealias Failure = Never

  let stream: AsyncStream<InspectionEvent>

  /// The iterator of the events.
  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncStream<InspectionEvent>.Iterator

    /// The next event; `nil` once the sequence ended.
    ///
    /// - Returns: The next event.
    public mutating func next() async -> InspectionEvent? {
      await base.next()
    }

    /// The next event, on the caller's isolation; `nil` once the sequence ended.
    ///
    /// - Parameter actor: The caller's isolation.
    /// - Returns: The next event.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> InspectionEvent? {
      await base.next(isolation: actor)
    }
  }

  /// An iterator over the events.
  ///
  /// - Returns: The iterator.
  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: stream.makeAsyncIterator())
  }
}

@available(*, unavailable)
extension InspectionEvents.AsyncIterator: Sendable {}
