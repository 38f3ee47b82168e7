/// Why a key's load ended without a value or an error of its own.
///
/// ```swift
/// if case .notResumed(let key) = $profile.loadError as? SharedLoadError {
///   print("the load of \(key) never answered")
/// }
/// ```
public enum SharedLoadError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The key's ``SharedReaderKey/load(context:continuation:)`` let go of its continuation without resuming it. The
  /// load ended with this error in ``Shared/loadError``, holders kept their value, and every `load()` returned.
  case notResumed(key: String)

  /// A sentence naming the key and the problem.
  public var description: String {
    switch self {
    case .notResumed(let key):
      return "The load of \(key) ended without resuming its continuation: a key's load must resume it exactly once."
    }
  }
}
