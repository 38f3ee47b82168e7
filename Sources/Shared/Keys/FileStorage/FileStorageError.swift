public import Foundation

/// Why a file-backed value could not be loaded or saved. Every case names the file.
public enum FileStorageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file exists but could not be read.
  case unreadable(url: URL, reason: String)
  /// The file does not hold a valid JSON document of the value's type. The file was left untouched.
  case corrupt(url: URL, reason: String)
  /// The value could not be encoded as JSON.
  case unencodable(url: URL, reason: String)
  /// The file, or its folder, could not be written. The value is kept in memory.
  case unwritable(url: URL, reason: String)
  /// The key was given a URL that does not name a file (such as an `https` URL): nothing is read or written.
  case notAFileURL(url: URL)

  /// A sentence naming the file and the problem.
  public var description: String {
    switch self {
    case .unreadable(let url, let reason): return "Cannot read \(url.path): \(reason)"
    case .corrupt(let url, let reason): return "\(url.path) does not hold a valid document: \(reason)"
    case .unencodable(let url, let reason): return "Cannot encode the value for \(url.path): \(reason)"
    case .unwritable(let url, let reason): return "Cannot write \(url.path): \(reason)"
    case .notAFileURL(let url): return "\(url.absoluteString) is not a file URL: fileStorage needs a file URL"
    }
  }
}
