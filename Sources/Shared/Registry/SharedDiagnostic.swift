/// A problem the framework noticed with how a shared value is used; also printed to standard error.
///
/// ```swift
/// let registry = SharedRegistry()
/// // ... code that uses the registry ...
/// #expect(registry.diagnostics.isEmpty)
/// ```
public struct SharedDiagnostic: Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem it is.
  public enum Kind: Sendable, Hashable {
    /// A key was held with a value type other than the one its shared value already has. The new holder got a
    /// value of its own, shared with nobody and not stored.
    case typeMismatch(existing: String, requested: String)
    /// A query key was held with two different fetchers (named by where they are written). The first fetcher's
    /// value is shared; the second fetcher is not used.
    case conflictingFetchers(first: String, second: String)
    /// A writable holder (`@Shared`) was made for a value that a read-only key (named here) made first, for
    /// `@SharedReader`. That value cannot save, so the writer got a value of its own, shared with nobody and not
    /// stored. Give the readers the writable key, or the writer a key of its own.
    case readOnlyValue(reader: String)
    /// A write to a cached query (``QueryStore/update(_:as:_:)``, an optimistic
    /// ``OptimisticCache/update(_:as:_:)-(_,_,(State)->Void)``) named a state type other than the query's. Nothing
    /// was written, and the write returned ``QueryUpdateResult/typeMismatch(expected:found:)``.
    case queryWriteTypeMismatch(existing: String, written: String)
  }

  /// What kind of problem it is.
  public let kind: Kind
  /// The key involved, as text.
  public let key: String

  /// A sentence that names the key and what went wrong.
  public var description: String {
    switch kind {
    case .typeMismatch(let existing, let requested):
      return "Shared key \(key) already holds a value of type \(existing); a holder asked for \(requested) "
        + "and got its own value, shared with nobody and not stored."
    case .readOnlyValue(let reader):
      return "Shared key \(key) names a value that the read-only key \(reader) made; a writable holder of it got "
        + "its own value, shared with nobody and not stored."
    case .queryWriteTypeMismatch(let existing, let written):
      return "Query \(key) holds a state of type \(existing); a write asked for \(written) and changed nothing."
    case .conflictingFetchers(let first, let second):
      return "Query \(key) is fetched by the fetcher at \(first); the holder made at \(second) brought another "
        + "fetcher, which is not used. Give different fetchers different keys."
    }
  }
}
