import Foundation

/// A version of a key's row that another instance wrote, as a notification announced it.
struct StoredChange: Sendable, Equatable {
  /// The row's version.
  var version: Int64
  /// The value's JSON, or `nil` when it did not fit in the notification and must be read from the row.
  var json: Data?
}
