public import Foundation

/// What the query store knows of a query, as an inspector shows it: freshness, holders, collection.
///
/// ```swift
/// let stale = SharedRegistry.current.inspector.snapshot().keys.filter { $0.query?.isStale == true }
/// ```
public struct InspectedQuery: Sendable, Hashable {
  /// Whether the value is stale: never fetched, invalidated, or older than its `staleTime`.
  public var isStale: Bool
  /// When a fresh value turns stale; `nil` when it is stale already.
  public var staleAt: Date?
  /// Whether something besides the store refers to the value: a holder, an iteration, an observer, a fetch.
  public var isHeld: Bool
  /// Whether the query fetches on its own (``QueryStore/setEnabled(_:for:)``).
  public var isEnabled: Bool
  /// When nobody holds the query: about when it will be collected (its `gcTime` after it was last used; garbage
  /// checks run a few times per `gcTime`). `nil` while it is held.
  public var collectedAt: Date?
  /// Whether the query shows a state the inspector forced (``InspectorAction/forceLoading`` or
  /// ``InspectorAction/forceError(message:)``) that ``InspectorAction/restore`` can undo.
  public var isForced: Bool
  /// The query's ``QueryOptions/meta``, each value as text (``OperationMeta/summary``); empty when it has none.
  public var meta: [String: String]

  /// A query inspection with the given parts.
  ///
  /// - Parameters:
  ///   - isStale: Whether the value is stale.
  ///   - staleAt: When a fresh value turns stale.
  ///   - isHeld: Whether something holds the value.
  ///   - isEnabled: Whether the query fetches on its own.
  ///   - collectedAt: When an unheld query will be collected.
  ///   - isForced: Whether the inspector forced its state.
  ///   - meta: The query's meta, as text; none by default.
  public init(
    isStale: Bool,
    staleAt: Date?,
    isHeld: Bool,
    isEnabled: Bool,
    collectedAt: Date?,
    isForced: Bool,
    meta: [String: String] = [:]
  ) {
    self.isStale = isStale
    self.staleAt = staleAt
    self.isHeld = isHeld
    self.isEnabled = isEnabled
    self.collectedAt = collectedAt
    self.isForced = isForced
    self.meta = meta
  }
}
