/// The identity of a ``FileStorageKey``: one value per file path, whatever the value type.
///
/// ```swift
/// let path = FileStorageKey<Settings>(url: settingsURL).id.path
/// ```
public struct FileStorageKeyID: Hashable, Sendable {
  /// The standardized path of the file.
  public let path: String
}
