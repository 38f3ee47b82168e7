/// What an app attaches to a query or a mutation for its own use, as TanStack Query's `meta`: a screen name, how to
/// word an error, whether a failure is worth a toast. The library keeps it and hands it on, and never reads it.
///
/// ```swift
/// let options = QueryOptions(meta: ["screen": "feed", "showsErrorToast": true])
/// ```
///
/// It reaches a query's fetcher and a mutation's closure through ``OperationContext/meta``, the store's hooks
/// through ``QueryHookSubject/meta``, and an inspector as text (``InspectedQuery/meta``,
/// ``InspectedMutationRun/meta``):
///
/// ```swift
/// store.hooks.onError = { subject, error in
///   if subject.meta["showsErrorToast", as: Bool.self] == true { showToast(error) }
/// }
/// ```
///
/// Values are any `Sendable`; read one back with its type (``subscript(_:as:)``). It is empty by default and costs
/// one reference when it is not.
public struct OperationMeta: Sendable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
  /// The entries, kept in one object so that options holding the same meta are known to be identical cheaply.
  private final class Storage: Sendable {
    let entries: [String: any Sendable]
    init(_ entries: [String: any Sendable]) { self.entries = entries }
  }

  private let storage: Storage?

  /// Meta with `entries`; none by default.
  ///
  /// ```swift
  /// let meta = OperationMeta(["screen": "feed"])
  /// ```
  ///
  /// - Parameter entries: The values, by name.
  public init(_ entries: [String: any Sendable] = [:]) {
    storage = entries.isEmpty ? nil : Storage(entries)
  }

  /// Meta written as a dictionary literal: `["screen": "feed"]`.
  ///
  /// - Parameter elements: The names and values; a name given twice keeps its last value.
  public init(dictionaryLiteral elements: (String, any Sendable)...) {
    self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }

  /// The entries, by name.
  public var entries: [String: any Sendable] { storage?.entries ?? [:] }

  /// Whether there is no entry.
  public var isEmpty: Bool { storage == nil }

  /// The value named `name`, if any.
  ///
  /// - Parameter name: The entry's name.
  /// - Returns: Its value.
  public subscript(_ name: String) -> (any Sendable)? {
    storage?.entries[name]
  }

  /// The value named `name`, if there is one of type `type`.
  ///
  /// ```swift
  /// let screen = meta["screen", as: String.self]
  /// ```
  ///
  /// - Parameters:
  ///   - name: The entry's name.
  ///   - type: The type the value is read as.
  /// - Returns: The value, or `nil` if there is none or it has another type.
  public subscript<Value>(_ name: String, as type: Value.Type) -> Value? {
    storage?.entries[name] as? Value
  }

  /// Each entry's value as text (`String(describing:)`), by name: what an inspector shows.
  public var summary: [String: String] {
    entries.mapValues { String(describing: $0) }
  }

  /// The entries as text, sorted by name: `["screen": feed]`.
  public var description: String {
    "[" + summary.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "]"
  }

  /// Whether both are empty or were made as one value (copies of it).
  func isIdentical(to other: OperationMeta) -> Bool {
    storage === other.storage
  }
}
