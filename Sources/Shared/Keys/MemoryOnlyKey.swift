/// A key whose value lives in memory only: nothing is loaded, saved or watched, so the registry makes no
/// persistence for it (``InMemoryKey``, ``Query``).
///
/// A ``SharedReader`` made from any key asks whether it is one, so that such a value is made the same way whichever
/// holder comes first.
protocol MemoryOnlyKey<Value>: SharedReaderKey {
  /// Called for every new holder of the key's value, once the value exists; queries fetch here when the value is
  /// missing or stale. The default does nothing.
  func holderDidAppear(_ shared: Shared<Value>, in registry: SharedRegistry)
  /// Whether the key names a query's value, whose writes go through its optimistic changes (see `SharedRoot`). The
  /// default is `false`.
  static var namesQueryValue: Bool { get }
}

extension MemoryOnlyKey {
  func holderDidAppear(_ shared: Shared<Value>, in registry: SharedRegistry) {}
  static var namesQueryValue: Bool { false }
}
