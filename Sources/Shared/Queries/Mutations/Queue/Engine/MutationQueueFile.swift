import Foundation

/// The document a ``MutationQueue`` writes: a format version, the entries in order and the entries that gave up,
/// each with its identifier, its key (as JSON values), its arguments (the JSON text they encode to), when it was
/// queued, how many runs were claimed and how many failed, and the description of its latest error.
///
/// ```json
/// {"version":2,"entries":[{"id":"…","key":["add-todo"],"arguments":"\"Milk\"","enqueuedAt":786000000.0,
///   "attempts":1,"failures":1,"lastError":"HTTP 503"}],"failed":[]}
/// ```
///
/// Version 1 (before the queue could give up) had no `failed`, `attempts`, `failures` or `lastError`: it reads as
/// entries with no attempts counted and none given up.
struct MutationQueueFile: Codable {
  /// The format this version writes.
  static let currentVersion = 2
  /// The formats this version reads.
  static let readableVersions = 1...2

  var version: Int
  var entries: [StoredEntry]
  /// Absent in version 1.
  var failed: [StoredEntry]?

  /// One entry as the file holds it.
  struct StoredEntry: Codable {
    var id: UUID
    var key: [StoredKeyPart]
    var arguments: String
    var enqueuedAt: Date
    /// How many runs were claimed (each before it started); absent in version 1.
    var attempts: Int?
    /// How many runs failed; absent in version 1.
    var failures: Int?
    /// The description of the latest error, if a run failed (or the entry gave up); absent in version 1.
    var lastError: String?
  }

  /// An error read back from the file: the description of an error an earlier run of the program met.
  struct RestoredError: Error, CustomStringConvertible {
    var description: String
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

  /// The document holding `entries`, in order, and `failed`, the entries that gave up.
  static func encode(_ entries: [MutationQueueEntry], failed: [MutationQueueEntry] = []) throws -> Data {
    let store = { (entry: MutationQueueEntry) throws -> StoredEntry in
      StoredEntry(
        id: entry.id, key: try storedKey(entry.key),
        arguments: String(decoding: entry.arguments, as: UTF8.self), enqueuedAt: entry.enqueuedAt,
        attempts: entry.attempts, failures: entry.failures, lastError: entry.lastError.map { "\($0)" })
    }
    let file = MutationQueueFile(
      version: currentVersion, entries: try entries.map(store), failed: try failed.map(store))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(file)
  }

  /// The entries of a document, in order, and the ones that gave up, with no registration's policy and no
  /// blocker yet; throws a reason when it is not a queue this version reads.
  static func decode(_ data: Data) throws -> (entries: [MutationQueueEntry], failed: [MutationQueueEntry]) {
    let file = try JSONDecoder().decode(MutationQueueFile.self, from: data)
    guard readableVersions.contains(file.version) else {
      throw UnknownVersion(version: file.version)
    }
    let read = { (stored: StoredEntry) -> MutationQueueEntry in
      var entry = MutationQueueEntry(
        id: stored.id, key: QueryKey(stored.key.map(\.part)), arguments: Data(stored.arguments.utf8),
        enqueuedAt: stored.enqueuedAt)
      entry.attempts = max(stored.attempts ?? 0, 0)
      entry.failures = min(max(stored.failures ?? 0, 0), entry.attempts)
      entry.lastError = stored.lastError.map { HashableError(RestoredError(description: $0)) }
      return entry
    }
    return (file.entries.map(read), (file.failed ?? []).map(read))
  }

  /// A document of a format this version does not read.
  struct UnknownVersion: Error, CustomStringConvertible {
    var version: Int
    var description: String {
      "format version \(version), where this version reads \(readableVersions.lowerBound) to \(readableVersions.upperBound)"
    }
  }
}
