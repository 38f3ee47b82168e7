public import Foundation

/// Something that happened to a key of a running program: a fetch, an invalidation, a mutation's run, a save.
///
/// ```swift
/// for await event in SharedRegistry.current.inspector.events() {
///   print(event.sequence, event.key, event.kind.name)
/// }
/// ```
///
/// Events are recorded only while an inspector is attached (see ``SharedInspector/events(bufferingNewest:)``); each
/// has the next ``sequence`` number of its registry, in the order the events were published.
public struct InspectionEvent: Sendable {
  /// What happened.
  public enum Kind: Sendable {
    /// A query's fetch started.
    case fetchStarted
    /// A query's fetch ended after `duration`, with its retries.
    case fetchEnded(duration: Duration, outcome: Outcome)
    /// The query was marked stale.
    case invalidated
    /// The query's fetches were cancelled.
    case cancelled
    /// The query was put back in its initial state.
    case reset
    /// The query was removed from its store.
    case removed
    /// The query was collected: nobody used it for its `gcTime`, or the store was over its capacity.
    case collected
    /// A run of the mutation started.
    case mutationStarted
    /// The mutation's callback was called.
    case mutationCallback(MutationCallback)
    /// A run of the mutation ended after `duration`.
    case mutationEnded(duration: Duration, outcome: Outcome)
    /// The key's store loaded the value.
    case loaded
    /// The key's store failed to load.
    case loadFailed(error: String)
    /// The value was saved to the key's store.
    case saved
    /// A save to the key's store failed.
    case saveFailed(error: String)
    /// The inspector forced the query's state.
    case forced(InspectorAction)
    /// The inspector put back the query's state from before it was forced.
    case restored

    /// The case's name: `"fetchStarted"`, `"fetchEnded"`, `"invalidated"` and so on.
    public var name: String {
      switch self {
      case .fetchStarted: "fetchStarted"
      case .fetchEnded: "fetchEnded"
      case .invalidated: "invalidated"
      case .cancelled: "cancelled"
      case .reset: "reset"
      case .removed: "removed"
      case .collected: "collected"
      case .mutationStarted: "mutationStarted"
      case .mutationCallback: "mutationCallback"
      case .mutationEnded: "mutationEnded"
      case .loaded: "loaded"
      case .loadFailed: "loadFailed"
      case .saved: "saved"
      case .saveFailed: "saveFailed"
      case .forced: "forced"
      case .restored: "restored"
      }
    }
  }

  /// How a fetch or a mutation's run ended.
  public enum Outcome: Sendable {
    /// It succeeded, with its result summarized.
    case success(ValueSummary)
    /// It failed with an error of this description.
    case failure(String)
    /// It was cancelled.
    case cancelled
  }

  /// A mutation's callback.
  public enum MutationCallback: String, Sendable, Hashable {
    /// The run succeeded.
    case onSuccess
    /// The run failed.
    case onError
    /// The run ended, whichever way.
    case onSettled
  }

  /// The event's place among its registry's events: 1 for the first, growing by one.
  public var sequence: UInt64
  /// When it was published.
  public var date: Date
  /// The key it happened to, as ``InspectedKey/id`` names it.
  public var key: String
  /// What happened.
  public var kind: Kind

  /// An event with the given parts.
  ///
  /// - Parameters:
  ///   - sequence: Its place among the registry's events.
  ///   - date: When it was published.
  ///   - key: The key it happened to.
  ///   - kind: What happened.
  public init(sequence: UInt64, date: Date, key: String, kind: Kind) {
    self.sequence = sequence
    self.date = date
    self.key = key
    self.kind = kind
  }
}

extension InspectionEvent.Outcome {
  /// How a fetch or run with `result` ended; a success's value summarized (the program's code: call outside every
  /// lock).
  init<Success>(_ result: Result<Success, any Error>) {
    switch result {
    case .success(let value): self = .success(ValueSummary(of: value))
    case .failure(let error) where error is CancellationError: self = .cancelled
    case .failure(let error): self = .failure(String(describing: error))
    }
  }
}
