/// Something an inspector does to a query: what a developer clicks in a devtools panel.
///
/// ```swift
/// SharedRegistry.current.inspector.perform(.invalidate, on: ["todos"])
/// ```
///
/// The forcing actions let a developer see how a screen shows a query that is loading or failed without making the
/// server slow or broken: ``forceLoading`` and ``forceError(message:)`` keep the query's state as it was, and
/// ``restore`` puts it back. A fetch under way, or one that starts later, writes its result as usual and ends the
/// forced state; restoring then leaves the fetched value.
public enum InspectorAction: Sendable, Hashable {
  /// Fetches the query again now (``QueryStore/refetch(_:)-(QueryKey)``).
  case refetch
  /// Marks the query stale, refetching it if it is held (``QueryStore/invalidate(_:refetching:)``).
  case invalidate
  /// Puts the query back in its initial state (``QueryStore/reset(_:)``).
  case reset
  /// Removes the query from the store (``QueryStore/remove(_:)``).
  case remove
  /// Shows the query loading, as in its first load: no value, pending, fetching.
  case forceLoading
  /// Shows the query failed with an error whose description is `message` (an ``InspectedError``).
  case forceError(message: String)
  /// Puts back the state the query had before the first of the ``forceLoading`` and ``forceError(message:)`` made one
  /// after another since the last restore, unless something wrote the value since the last force. A write between
  /// two forces (a fetch that ended) ends the earlier one: restoring then puts back the state that write left.
  case restore

  /// The action's name, as a web inspector sends it: `"refetch"`, `"invalidate"`, `"reset"`, `"remove"`,
  /// `"forceLoading"`, `"forceError"` or `"restore"`.
  public var name: String {
    switch self {
    case .refetch: "refetch"
    case .invalidate: "invalidate"
    case .reset: "reset"
    case .remove: "remove"
    case .forceLoading: "forceLoading"
    case .forceError: "forceError"
    case .restore: "restore"
    }
  }
}
