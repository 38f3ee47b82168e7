/// What kept ``SharedRegistry/flush()`` from writing everything: each value (or other participant) whose write
/// failed, with its error.
///
/// ```swift
/// func finish() async {
///   do {
///     try await SharedRegistry.current.flush()
///   } catch let error as SharedFlushError {
///     for failure in error.failures { print("not saved: \(failure.key): \(failure.error)") }
///   } catch {
///     print("the flush was cancelled")
///   }
/// }
/// ```
///
/// The writes that succeeded are in their stores; each failed value keeps its change in memory and its
/// ``Shared/saveError``, so a later flush (or ``Shared/save()``) tries again.
public struct SharedFlushError: Error, Sendable, CustomStringConvertible {
  /// One value whose write failed.
  public struct Failure: Sendable {
    /// The value's key, as it reads in code (`.fileStorage(/var/lib/app/settings.json)`, say).
    public let key: String
    /// Why the write failed: the error its save threw (a ``FileStorageError`` for a file).
    public let error: any Error
  }

  /// Every failed write, in the order the values were made.
  public let failures: [Failure]

  /// A sentence per failure, naming the key.
  public var description: String {
    let lines = failures.map { "\($0.key): \($0.error)" }
    return "\(failures.count) pending save\(failures.count == 1 ? "" : "s") failed: " + lines.joined(separator: "; ")
  }
}
