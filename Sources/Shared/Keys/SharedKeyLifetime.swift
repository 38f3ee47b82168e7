/// How long a keyed value lives after its last holder is gone.
///
/// A key says it with ``SharedReaderKey/lifetime``:
///
/// ```swift
/// struct SessionKey: SharedReaderKey {
///   typealias Value = Session
///   var id: String { "session" }
///   var lifetime: SharedKeyLifetime { .permanent }
/// }
/// ```
public enum SharedKeyLifetime: Sendable, Hashable {
  /// The value is freed when its last holder, iteration and running operation are gone; the next holder starts
  /// again from the store or its default.
  case whileHeld
  /// The value lives as long as its ``SharedRegistry``, like a global: for the default registry, the life of the
  /// process.
  case permanent
}
