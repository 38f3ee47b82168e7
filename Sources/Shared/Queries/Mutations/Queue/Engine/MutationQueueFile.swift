import Foundation

/// The document a ``MutationQueue`` writes: a format version and the entries in order, each with its identifier,
/// its key (as JSON values), its arguments (the JSON text they encode to) and when it was queued.
///
/// ```json
/// {"version":1,"entries":[{"id":"…","key":["add-todo"],"arguments":"\"Milk\"","enqueuedAt":786000000.0}]}
/// ```
struct MutationQueueFile: Codable {
  /// The format this version writes and reads.
  static let currentVersion = 1

  var version: Int
  var entries: [StoredEntry]

  /// One entry as the file holds it.
  struct StoredEntry: Codable {
    var id: UUID
    var key: [StoredKeyPart]
    var arguments: String
    var enqueuedAt: Date
  }

  /// A key part the file can hold: a string, an integer, a Boolean, a `Double` or a `UUID`, each told apart when
  /// read back (so the part `1` does not come back as `1.0` or `"1"`).
  enum StoredKeyPart: Codable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case double(Double)
    case uuid(UUID)

    /// The part, or `nil` for a part of another type.
    init?(_ part: any Hashable & Sendable) {
      switch part {
      case let part as String: self = .string(part)
      case let part as Int: self = .int(part)
      case let part as Bool: self = .bool(part)
      case let part as Double: self = .double(part)
      case let part as UUID: self = .uuid(part)
      default: return nil
      }
    }

    var part: any Hashable & Sendable {
      switch self {
      case .string(let part): part
      case .int(let part): part
      case .bool(let part): part
      case .double(let part): part
      case .uuid(let part): part
      }
    }

    private enum Tag: String, CodingKey {
      case double, uuid
    }

    // Strings, integers and Booleans are plain JSON values; a `Double` and a `UUID` are tagged, since their JSON
    // would read back as an integer or a string.
    func encode(to encoder: any Encoder) throws {
      switch self {
      case .string(let part):
        var container = encoder.singleValueContainer()
        try container.encode(part)
      case .int(let part):
        var container = encoder.singleValueContainer()
        try container.encode(part)
      case .bool(let part):
        var container = encoder.singleValueContainer()
        try container.encode(part)
      case .double(let part):
        var container = encoder.container(keyedBy: Tag.self)
        try container.encode(part, forKey: .double)
      case .uuid(let part):
        var container = encoder.container(keyedBy: Tag.self)
        try container.encode(part, forKey: .uuid)
      }
    }

    init(from decoder: any Decoder) throws {
      if let tagged = try? decoder.container(keyedBy: Tag.self) {
        if let part = try tagged.decodeIfPresent(Double.self, forKey: .double) {
          self = .double(part)
        } else {
          self = .uuid(try tagged.decode(UUID.self, forKey: .uuid))
        }
        return
      }
      let container = try decoder.singleValueContainer()
      if let part = try? container.decode(Bool.self) {
        self = .bool(part)
      } else if let part = try? container.decode(Int.self) {
        self = .int(part)
      } else {
        self = .string(try container.decode(String.self))
      }
    }
  }

  // MARK: Keys

  /// `key` as the file holds it.
  static func storedKey(_ key: QueryKey) throws(MutationQueueError) -> [StoredKeyPart] {
    try key.parts.map { part throws(MutationQueueError) in
      guard let stored = StoredKeyPart(part) else {
        throw .unsupportedKeyPart(key: key, part: "\(part) (\(type(of: part)))")
      }
      return stored
    }
  }

  // MARK: Arguments

  /// `arguments` as JSON text, checked to decode back as their type.
  static func encodeArguments<Arguments: Codable>(_ arguments: Arguments, key: QueryKey) throws(MutationQueueError)
    -> Data
  {
    do {
      let data = try JSONEncoder().encode(arguments)
      _ = try JSONDecoder().decode(Arguments.self, from: data)
      return data
    } catch {
      throw .unencodableArguments(key: key, reason: "\(error)")
    }
  }

  static func decodeArguments<Arguments: Decodable>(_ type: Arguments.Type, from data: Data) throws -> Arguments {
    try JSONDecoder().decode(type, from: data)
  }

  // MARK: The document

  /// The document holding `entries`.
  static func encode(_ entries: [MutationQueueEntry]) throws -> Data {
    let file = MutationQueueFile(
      version: currentVersion,
      entries: try entries.map { entry in
        StoredEntry(
          id: entry.id, key: try storedKey(entry.key),
          arguments: String(decoding: entry.arguments, as: UTF8.self), enqueuedAt: entry.enqueuedAt)
      })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(file)
  }

  /// The entries of a document, in order; throws a reason when it is not a queue this version reads.
  static func decode(_ data: Data) throws -> [(id: UUID, key: QueryKey, arguments: Data, enqueuedAt: Date)] {
    let file = try JSONDecoder().decode(MutationQueueFile.self, from: data)
    guard file.version == currentVersion else {
      throw UnknownVersion(version: file.version)
    }
    return file.entries.map { entry in
      (entry.id, QueryKey(entry.key.map(\.part)), Data(entry.arguments.utf8), entry.enqueuedAt)
    }
  }

  /// A document of a format this version does not read.
  struct UnknownVersion: Error, CustomStringConvertible {
    var version: Int
    var description: String { "format version \(version), where this version reads \(currentVersion)" }
  }
}
