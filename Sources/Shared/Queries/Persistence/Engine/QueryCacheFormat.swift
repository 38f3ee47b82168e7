import Foundation

/// The bytes of a persisted query cache, as a persister stores them.
///
/// ```
/// "SSQCACHE"  format (1 byte)  version (length, UTF-8)  savedAt (8)  count (4)
/// per entry:  key (length, tagged parts)  updatedAt (8)  flags (1)  value (length, JSON)
/// checksum (8): FNV-1a of every byte before it
/// ```
///
/// Integers are little-endian; dates are the bits of `timeIntervalSinceReferenceDate`, so they read back exactly.
/// Values stay the JSON they were encoded to: restoring reads no value, and writing encodes only the changed ones.
/// The checksum catches a damaged or truncated cache before anything is read from it.
enum QueryCacheFormat {
  static let magic = Array("SSQCACHE".utf8)
  /// The layout this library writes; a cache of another layout is dropped as ``QueryCacheProblem/unsupportedFormat(_:)``.
  static let format: UInt8 = 1

  /// What a cache holds.
  struct Contents {
    var version: String
    var savedAt: Date
    var entries: [QueryCacheEntry]
  }

  /// The bytes of a cache of `entries`, written by `version` of the app at `savedAt`.
  static func encode(version: String, savedAt: Date, entries: some Collection<QueryCacheEntry>) -> Data {
    let size = entries.reduce(64 + version.utf8.count) { $0 + $1.keyBytes.count + $1.value.count + 21 }
    var writer = QueryCacheByteWriter(capacity: size)
    writer.appendRaw(magic)
    writer.appendByte(format)
    writer.appendSized(Array(version.utf8))
    writer.appendUInt64(savedAt.timeIntervalSinceReferenceDate.bitPattern)
    writer.appendUInt32(UInt32(entries.count))
    for entry in entries {
      writer.appendSized(entry.keyBytes)
      writer.appendUInt64(entry.updatedAt.timeIntervalSinceReferenceDate.bitPattern)
      writer.appendByte(entry.isInvalidated ? 1 : 0)
      writer.appendSized(entry.value)
    }
    let checksum = writer.bytes.withUnsafeBytes(queryCacheChecksum)
    writer.appendUInt64(checksum)
    return Data(writer.bytes)
  }

  /// What `data` holds, each value a slice of `data` (nothing is copied); throws what is wrong with it.
  static func decode(_ data: Data) throws(QueryCacheProblem) -> Contents {
    let parsed = data.withUnsafeBytes { bytes -> Result<Parsed, QueryCacheProblem> in
      Result { () throws(QueryCacheProblem) -> Parsed in try parse(bytes) }
    }
    let layout = try parsed.get()
    let base = data.startIndex
    let entries = layout.entries.map { entry in
      QueryCacheEntry(
        key: entry.key, keyBytes: data[(base + entry.keyBytes.lowerBound)..<(base + entry.keyBytes.upperBound)],
        updatedAt: entry.updatedAt, isInvalidated: entry.isInvalidated,
        value: data[(base + entry.value.lowerBound)..<(base + entry.value.upperBound)])
    }
    return Contents(version: layout.version, savedAt: layout.savedAt, entries: entries)
  }

  /// A cache read, its byte fields as ranges of the input.
  private struct Parsed {
    var version: String
    var savedAt: Date
    var entries: [ParsedEntry]
  }

  private struct ParsedEntry {
    var key: QueryKey
    var keyBytes: Range<Int>
    var updatedAt: Date
    var isInvalidated: Bool
    var value: Range<Int>
  }

  private static func parse(_ bytes: UnsafeRawBufferPointer) throws(QueryCacheProblem) -> Parsed {
    guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else {
      throw .corrupt(reason: "it is not a query cache (\(bytes.count) bytes without the cache's header)")
    }
    guard bytes.count > magic.count else { throw .corrupt(reason: "it ends after its header: truncated") }
    let found = bytes[magic.count]
    guard found == format else { throw .unsupportedFormat(Int(found)) }
    guard bytes.count >= magic.count + 1 + 8 else { throw .corrupt(reason: "it ends after its header: truncated") }
    let body = UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 8)])
    let stored = UInt64(
      littleEndian: UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - 8)...]).loadUnaligned(as: UInt64.self))
    guard queryCacheChecksum(body) == stored else {
      throw .corrupt(reason: "its checksum does not match its \(bytes.count) bytes: it is truncated or damaged")
    }
    do throws(QueryCacheByteReader.Failure) {
      var reader = QueryCacheByteReader(body, offset: magic.count + 1)
      let versionRange = try reader.readSizedRange("version")
      guard let version = String(validating: body[versionRange], as: UTF8.self) else {
        throw QueryCacheByteReader.Failure(reason: "its version is not valid UTF-8")
      }
      let savedAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.readUInt64("save date")))
      let count = Int(try reader.readUInt32("entry count"))
      // Each entry takes at least 17 bytes: a count beyond that is damage, not a reason to reserve memory.
      guard count <= body.count / 17 else {
        throw QueryCacheByteReader.Failure(reason: "it claims \(count) entries in \(body.count) bytes")
      }
      var entries: [ParsedEntry] = []
      entries.reserveCapacity(count)
      for _ in 0..<count {
        let keyRange = try reader.readSizedRange("key")
        let key = try QueryKeyCoding.key(from: UnsafeRawBufferPointer(rebasing: body[keyRange]))
        let updatedAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.readUInt64("update date")))
        let flags = try reader.readByte("flags")
        let valueRange = try reader.readSizedRange("value")
        entries.append(
          ParsedEntry(
            key: key, keyBytes: keyRange, updatedAt: updatedAt, isInvalidated: flags & 1 != 0, value: valueRange))
      }
      guard reader.isAtEnd else {
        throw QueryCacheByteReader.Failure(reason: "\(body.count - reader.offset) bytes follow its last entry")
      }
      return Parsed(version: version, savedAt: savedAt, entries: entries)
    } catch {
      throw .corrupt(reason: error.reason)
    }
  }
}
