import Foundation
import Testing

@testable import SharedState

/// A query cache as a value: its bytes read back exactly, every damaged or truncated form of them is refused with a
/// named problem (never a crash), and its `Codable` form keeps each key part's type.
@Suite struct PersistedQueryCacheTests {
  private let saved = Date(timeIntervalSinceReferenceDate: 800_000_000.123_456)

  private func sampleCache() throws -> PersistedQueryCache {
    let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    return PersistedQueryCache(
      version: "2.1 ✓",
      savedAt: saved,
      entries: [
        try .init(key: ["posts", 42], value: "Hello", updatedAt: saved.addingTimeInterval(-60)),
        try .init(
          key: ["parts", uuid, true, -2.5, nil as Int?, Int.min, ""], value: [1, 2, 3],
          updatedAt: saved.addingTimeInterval(-0.000_001), isInvalidated: true),
        .init(key: [], updatedAt: .distantPast, value: Data("null".utf8)),
      ])
  }

  @Test func theBytesReadBackAsTheSameCacheWithKeyPartsOfTheSameTypes() throws {
    let cache = try sampleCache()
    let read = try PersistedQueryCache(encoded: try cache.encoded())
    #expect(read == cache)
    #expect(read.savedAt == saved)
    #expect(
      read.entries[1].key.parts.map { "\(type(of: $0))" } == [
        "String", "UUID", "Bool", "Double", "QueryKeyNil", "Int", "String",
      ])
    #expect(read.entries[1].key != ["parts"])
    #expect(try read.entries[1].decodedValue(as: [Int].self) == [1, 2, 3])
    #expect(read.entries[1].isInvalidated)
    // An Int part is not an Int64 part, nor a String part: read back, the key names the same query only.
    let int64: QueryKey = ["posts", Int64(42)]
    let text: QueryKey = ["posts", "42"]
    #expect(read.entries[0].key != int64)
    #expect(read.entries[0].key != text)
  }

  @Test func everyTruncationIsRefusedAsCorrupt() throws {
    let bytes = try sampleCache().encoded()
    for length in 0..<bytes.count {
      do {
        _ = try PersistedQueryCache(encoded: bytes.prefix(length))
        Issue.record("a cache truncated to \(length) of \(bytes.count) bytes was read")
      } catch let problem as QueryCacheProblem {
        guard case .corrupt = problem else {
          Issue.record("truncated to \(length): \(problem)")
          continue
        }
      }
    }
  }

  @Test func everyDamagedByteIsRefused() throws {
    let bytes = try sampleCache().encoded()
    for index in bytes.indices {
      var damaged = bytes
      damaged[index] ^= 0x5A
      #expect(throws: QueryCacheProblem.self, "byte \(index) damaged") {
        try PersistedQueryCache(encoded: damaged)
      }
    }
  }

  @Test func aCacheOfAnotherLayoutIsRefusedByItsLayout() throws {
    var bytes = try sampleCache().encoded()
    bytes[bytes.startIndex + 8] = 9
    #expect(throws: QueryCacheProblem.unsupportedFormat(9)) { try PersistedQueryCache(encoded: bytes) }
  }

  @Test func aWholeCacheThatClaimsMoreThanItHoldsIsRefused() throws {
    // A cache with a valid checksum whose entry count is beyond what its bytes can hold.
    var writer = QueryCacheByteWriter()
    writer.appendRaw(QueryCacheFormat.magic)
    writer.appendByte(QueryCacheFormat.wholeFormat)
    writer.appendSized(Array("1".utf8))
    writer.appendUInt64(0)
    writer.appendUInt32(UInt32.max)
    var bytes = writer.bytes
    let checksum = bytes.withUnsafeBytes(queryCacheChecksum)
    withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
    let problem = #expect(throws: QueryCacheProblem.self) { try PersistedQueryCache(encoded: Data(bytes)) }
    guard case .corrupt(let reason) = problem else {
      Issue.record("refused with \(problem as Any)")
      return
    }
    #expect(reason.contains("claims"))
  }

  @Test func aKeyWithAPartOfAnotherTypeCannotBeStored() throws {
    let date = Date()
    let entry = PersistedQueryCache.Entry(key: ["posts", date], updatedAt: date, value: Data("1".utf8))
    let cache = PersistedQueryCache(entries: [entry])
    #expect(throws: QueryCacheProblem.unsupportedKey(["posts", date])) { try cache.encoded() }
    #expect(throws: EncodingError.self) { try JSONEncoder().encode(cache) }
  }

  @Test func theCodableFormNamesEachKeyPartsType() throws {
    let entry = try PersistedQueryCache.Entry(key: ["posts", 42, nil as String?], value: "x", updatedAt: saved)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(entry), as: UTF8.self)
    #expect(json.contains(#""key":[{"string":"posts"},{"int":42},{"nil":true}]"#))
    #expect(try JSONDecoder().decode(PersistedQueryCache.Entry.self, from: Data(json.utf8)) == entry)
    let unknown = Data(json.replacingOccurrences(of: #"{"int":42}"#, with: #"{"float":42}"#).utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(PersistedQueryCache.Entry.self, from: unknown) }
  }
}
