import Foundation

/// How a ``QueryKey`` is written in a persisted query cache: each part with a tag for its type, so that the key read
/// back has parts of the same types (the part `1`, an `Int`, is not the part `"1"`).
///
/// The parts a cache can hold are `String`, `Int`, `Bool`, `Double`, `UUID` and a `nil` part; a key with a part of
/// any other type is not persisted.
enum QueryKeyCoding {
  /// The tags, one per part type.
  enum Tag: UInt8, CaseIterable {
    case string = 1
    case int = 2
    case bool = 3
    case double = 4
    case uuid = 5
    case nilPart = 6

    /// The name of the part type in the `Codable` form of an entry.
    var name: String {
      switch self {
      case .string: "string"
      case .int: "int"
      case .bool: "bool"
      case .double: "double"
      case .uuid: "uuid"
      case .nilPart: "nil"
      }
    }
  }

  /// The tag of `part`, by its exact type; `nil` for a type a cache cannot hold.
  static func tag(of part: any Hashable & Sendable) -> Tag? {
    let type = Swift.type(of: part)
    if type == String.self { return .string }
    if type == Int.self { return .int }
    if type == Bool.self { return .bool }
    if type == Double.self { return .double }
    if type == UUID.self { return .uuid }
    if type == QueryKeyNil.self { return .nilPart }
    return nil
  }

  /// The bytes of `key`, or `nil` if one of its parts is of a type a cache cannot hold.
  static func bytes(of key: QueryKey) -> [UInt8]? {
    var writer = QueryCacheByteWriter(capacity: 16 * key.parts.count)
    for part in key.parts {
      guard let tag = tag(of: part) else { return nil }
      writer.appendByte(tag.rawValue)
      switch tag {
      case .string: writer.appendSized(Array((part as! String).utf8))
      case .int: writer.appendUInt64(UInt64(bitPattern: Int64(part as! Int)))
      case .bool: writer.appendByte((part as! Bool) ? 1 : 0)
      case .double: writer.appendUInt64((part as! Double).bitPattern)
      case .uuid: writer.appendRaw(withUnsafeBytes(of: (part as! UUID).uuid) { Array($0) })
      case .nilPart: break
      }
    }
    return writer.bytes
  }

  /// The key `bytes` holds, as ``bytes(of:)`` wrote it.
  static func key(from bytes: UnsafeRawBufferPointer) throws(QueryCacheByteReader.Failure) -> QueryKey {
    var reader = QueryCacheByteReader(bytes)
    var parts: [any Hashable & Sendable] = []
    // One allocation for the parts, not one per doubling: a restore reads every key of the cache.
    parts.reserveCapacity(partCount(bytes))
    while !reader.isAtEnd {
      let raw = try reader.readByte("tag of a key part")
      guard let tag = Tag(rawValue: raw) else {
        throw QueryCacheByteReader.Failure(reason: "a key part has the unknown tag \(raw)")
      }
      switch tag {
      case .string:
        let count = Int(try reader.readUInt32("length of a key part"))
        let text = try reader.readBytes(count, "key part")
        guard let string = String(validating: text, as: UTF8.self) else {
          throw QueryCacheByteReader.Failure(reason: "a key part is not valid UTF-8")
        }
        parts.append(string)
      case .int:
        let value = Int64(bitPattern: try reader.readUInt64("key part"))
        guard let int = Int(exactly: value) else {
          throw QueryCacheByteReader.Failure(reason: "the key part \(value) does not fit an Int here")
        }
        parts.append(int)
      case .bool:
        let value = try reader.readByte("key part")
        guard value <= 1 else { throw QueryCacheByteReader.Failure(reason: "a Bool key part holds \(value)") }
        parts.append(value == 1)
      case .double:
        parts.append(Double(bitPattern: try reader.readUInt64("key part")))
      case .uuid:
        let raw = try reader.readBytes(16, "key part")
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
        parts.append(UUID(uuid: uuid))
      case .nilPart:
        parts.append(QueryKeyNil())
      }
    }
    return QueryKey(parts)
  }

  /// How many parts `bytes` holds, counted by their tags and lengths alone; a count for reserving only, whatever the
  /// bytes hold: reading them checks them (a damaged part ends the count where it is).
  private static func partCount(_ bytes: UnsafeRawBufferPointer) -> Int {
    var count = 0
    var offset = 0
    while offset < bytes.count {
      count += 1
      switch Tag(rawValue: bytes[offset]) {
      case .string:
        guard offset + 5 <= bytes.count else { return count }
        offset += 5 + Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self)))
      case .int, .double: offset += 9
      case .bool: offset += 2
      case .uuid: offset += 17
      case .nilPart: offset += 1
      case nil: return count
      }
    }
    return count
  }
}
