/// A fetch, a mutation run or a save that an instrument measures (see ``SharedInstrument/begin(_:)``).
public struct InstrumentedWork: Sendable {
  /// What kind of work it is.
  public enum Kind: String, Sendable, CaseIterable {
    /// A query's fetch, with its retries.
    case fetch
    /// A mutation's run, with its retries.
    case mutation
    /// A save of a value to its key's store (a file, a database).
    case save
  }

  /// What kind of work it is.
  public let kind: Kind
  /// The query's key for a fetch, the mutation's key for a run; `nil` for a save, and for the run of a mutation
  /// state held under a key that is not a ``MutationKey``.
  public let key: QueryKey?
  /// For a save, what its key is, without its generic arguments (`FileStorageKey`, `PostgresKey`); for a fetch,
  /// `query`; for a run, `mutation`.
  public let keyKind: String
  /// For a save, the key's identity as the inspector shows it (a file's path, a table and row); for a fetch or a
  /// run, the key's description (`["posts", 42]`), written when asked.
  public var name: String {
    savedKey ?? key?.description ?? "(unnamed)"
  }
  /// A save's key's identity; `nil` for a fetch or a run, whose name comes from its key.
  let savedKey: String?
  /// The operation's meta: the fetch's query options', or the run's options'.
  public let meta: OperationMeta

  static func fetch(_ key: QueryKey, meta: OperationMeta) -> Self {
    Self(kind: .fetch, key: key, keyKind: "query", savedKey: nil, meta: meta)
  }

  static func mutation(_ key: QueryKey?, meta: OperationMeta) -> Self {
    Self(kind: .mutation, key: key, keyKind: "mutation", savedKey: nil, meta: meta)
  }
}

/// How a measured fetch, mutation run or save ended.
public enum InstrumentedOutcome: Sendable {
  /// It succeeded.
  case success
  /// It failed for good (its retries, if any, are spent) with the error.
  case failure(any Error)
  /// It was cancelled: nobody needed it any more, or its task was cancelled.
  case cancelled

  init<Success>(_ result: Result<Success, any Error>) {
    switch result {
    case .success: self = .success
    case .failure(let error) where error is CancellationError: self = .cancelled
    case .failure(let error): self = .failure(error)
    }
  }

  /// The outcome's name: `success`, `failure` or `cancelled` (a metric's dimension, a span's attribute).
  public var name: String {
    switch self {
    case .success: "success"
    case .failure: "failure"
    case .cancelled: "cancelled"
    }
  }
}

/// Something a query store counts (see ``SharedInstrument/record(_:)``).
public enum InstrumentedEvent: Sendable {
  /// A caller of `fetch`, `ensureValue` or `value` was answered from the cache, without waiting for a fetch.
  case cacheHit(QueryKey)
  /// A caller of `fetch`, `ensureValue` or `value` waited for a fetch: one it started, or one under way.
  case cacheMiss(QueryKey)
  /// Queries left the store: collected after their `gcTime` unheld, or evicted over the store's capacity.
  /// `remaining` is how many queries the store keeps now.
  case queriesRemoved([QueryKey], reason: QueryRemovalReason, remaining: Int)
  /// A fetch or a mutation run waits for the network (the store follows an online status and it is offline).
  case paused
}

/// Why queries left a store (see ``InstrumentedEvent/queriesRemoved(_:reason:remaining:)``).
public enum QueryRemovalReason: String, Sendable, CaseIterable {
  /// Unheld for their `gcTime`.
  case collected
  /// Evicted, least recently used first, to keep the store within its capacity.
  case evicted
}
