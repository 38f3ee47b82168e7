import Foundation

/// A query state the persisted cache can hold: an ``OperationState`` of a `Codable` value, or a ``PaginatedState`` of
/// `Codable` page identifiers and pages (see `PaginatedState+PersistedCache.swift`).
///
/// The store finds out whether a query's state is one with a dynamic cast (`State.self as? any
/// PersistableQueryState.Type`), so that every query keeps its plain `OperationTrackable` state type.
protocol PersistableQueryState: OperationTrackable {
  /// Whether the state holds a value.
  var hasValue: Bool { get }
  /// The value as JSON; `nil` when the state holds none.
  func encodedValue(with encoder: JSONEncoder) throws -> Data?
  /// A success holding the value `data` holds.
  static func restoredState(from data: Data, with decoder: JSONDecoder) throws -> Self
  /// Takes the value of `other`, keeping this state's operation tracking.
  mutating func takeValue(from other: Self)
}

extension OperationState: PersistableQueryState where Value: Codable {
  var hasValue: Bool { value != nil }

  func encodedValue(with encoder: JSONEncoder) throws -> Data? {
    guard let value else { return nil }
    return try encoder.encode(value)
  }

  static func restoredState(from data: Data, with decoder: JSONDecoder) throws -> Self {
    Self(value: try decoder.decode(Value.self, from: data))
  }

  mutating func takeValue(from other: Self) {
    value = other.value
  }
}
