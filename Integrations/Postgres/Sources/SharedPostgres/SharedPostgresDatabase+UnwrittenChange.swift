extension SharedPostgresDatabase {
  /// A change that ``close(flushingWithin:)`` could not write.
  ///
  /// ```swift
  /// for change in await database.close() {
  ///   print("the change of \(change.key) is lost: \(change.error)")
  /// }
  /// ```
  public struct UnwrittenChange: Sendable, CustomStringConvertible {
    /// The key of the value, its row's key in the table.
    public let key: String
    /// Why it was not written: ``SharedPostgresError/notWrittenBeforeClose(key:)`` at the deadline,
    /// ``SharedPostgresError/undecodableRow(key:version:)``, or the server's error.
    public let error: any Error

    /// The key and the reason.
    public var description: String { "\(key): \(error)" }
  }
}
