import Foundation
import Testing

@testable import SharedState

/// The log a persisted cache is stored as: frames replayed in order, a torn or damaged end cut off where it starts.
@Suite struct QueryCacheFormatTests {
  private static let obtained = Date(timeIntervalSinceReferenceDate: 800_000_000)

  private static func entry(_ key: QueryKey, _ json: String, invalidated: Bool = false) -> QueryCacheEntry {
    QueryCacheEntry(
      key: key, keyBytes: QueryCacheEngine.keyBytes(key)!, updatedAt: obtained, isInvalidated: invalidated,
      value: Data(json.utf8))
  }

  /// A whole cache of posts 1 and 2, then a frame that changes post 1, removes post 2 and adds post 3.
  private static func twoFrames() -> (whole: Data, frame: Data) {
    let whole = QueryCacheFormat.encode(
      version: "7", savedAt: obtained, entries: [entry(["posts", 1], "\"one\""), entry(["posts", 2], "\"two\"")])
    let frame = QueryCacheFormat.frame(
      putting: [entry(["posts", 1], "\"one, edited\"", invalidated: true), entry(["posts", 3], "\"three\"")],
      removing: [QueryCacheEngine.keyBytes(["posts", 2])!])
    return (whole, frame)
  }

  private static func values(_ contents: QueryCacheFormat.Contents) -> [String: String] {
    var values: [String: String] = [:]
    for entry in contents.entries { values[entry.key.description] = String(decoding: entry.value, as: UTF8.self) }
    return values
  }

  @Test func framesReplayInOrderKeyByKey() throws {
    let (whole, frame) = Self.twoFrames()
    let contents = try QueryCacheFormat.decode(whole + frame)
    #expect(contents.version == "7")
    #expect(contents.cut == nil)
    #expect(contents.isAppendable)
    #expect(
      Self.values(contents) == [
        QueryKey(["posts", 1]).description: "\"one, edited\"", QueryKey(["posts", 3]).description: "\"three\"",
      ])
    #expect(contents.entries.first { $0.key == ["posts", 1] }?.isInvalidated == true)
    // What a whole write of the same entries would take: the header, and each put.
    let rewritten = QueryCacheFormat.encode(version: "7", savedAt: Self.obtained, entries: contents.entries)
    #expect(contents.liveBytes == rewritten.count - QueryCacheFormat.frameOverhead - 4)
  }

  /// A write torn anywhere in the appended frame leaves the cache the whole write made, and says what was cut.
  @Test func everyTruncationOfAnAppendedFrameRestoresTheCacheBeforeIt() throws {
    let (whole, frame) = Self.twoFrames()
    let before = Self.values(try QueryCacheFormat.decode(whole))
    for length in 1..<frame.count {
      let contents = try QueryCacheFormat.decode(whole + frame.prefix(length))
      #expect(Self.values(contents) == before, "cut at \(length) of \(frame.count)")
      #expect(contents.cut?.droppedBytes == length, "cut at \(length) of \(frame.count)")
      #expect(!contents.isAppendable)
    }
  }

  @Test func aDamagedByteInAnAppendedFrameCutsTheLogThere() throws {
    let (whole, frame) = Self.twoFrames()
    let before = Self.values(try QueryCacheFormat.decode(whole))
    let third = QueryCacheFormat.frame(putting: [Self.entry(["posts", 4], "4")], removing: [])
    for index in 0..<frame.count {
      var damaged = frame
      damaged[index] ^= 0x5A
      let contents = try QueryCacheFormat.decode(whole + damaged + third)
      #expect(Self.values(contents) == before, "byte \(index) damaged")
      #expect(contents.cut?.droppedBytes == frame.count + third.count, "byte \(index) damaged")
    }
  }

  /// A torn first frame of entries leaves nothing to restore, and is a cut; an end right after the header is not
  /// a cache at all (an empty cache is removed, never written).
  @Test func aLogEndingInItsFirstFrameOrAfterItsHeader() throws {
    let (whole, _) = Self.twoFrames()
    let header = QueryCacheFormat.magic.count + 1 + QueryCacheFormat.frameOverhead + 4 + 1 + 8
    #expect(throws: QueryCacheProblem.self) { try QueryCacheFormat.decode(whole.prefix(header)) }
    let torn = try QueryCacheFormat.decode(whole.prefix(header + 5))
    #expect(torn.entries.isEmpty)
    #expect(torn.cut?.droppedBytes == 5)
  }

  @Test func aCacheOfTheEarlierWholeLayoutIsStillRead() throws {
    var writer = QueryCacheByteWriter()
    writer.appendRaw(QueryCacheFormat.magic)
    writer.appendByte(QueryCacheFormat.wholeFormat)
    writer.appendSized(Array("1".utf8))
    writer.appendUInt64(Self.obtained.timeIntervalSinceReferenceDate.bitPattern)
    writer.appendUInt32(1)
    writer.appendSized(QueryCacheEngine.keyBytes(["posts", 1])!)
    writer.appendUInt64(Self.obtained.timeIntervalSinceReferenceDate.bitPattern)
    writer.appendByte(0)
    writer.appendSized(Array("\"old\"".utf8))
    var bytes = writer.bytes
    let checksum = bytes.withUnsafeBytes(queryCacheChecksum)
    withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
    let contents = try QueryCacheFormat.decode(Data(bytes))
    #expect(Self.values(contents) == [QueryKey(["posts", 1]).description: "\"old\""])
    #expect(contents.entries.first?.updatedAt == Self.obtained)
    // Not a log: the next write writes the whole cache in the current layout.
    #expect(!contents.isAppendable)
  }
}
