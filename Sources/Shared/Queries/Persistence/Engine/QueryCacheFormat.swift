import Foundation

/// The bytes of a persisted query cache, as a persister stores them: a log of frames, each checked on its own.
///
/// ```
/// "SSQCACHE"  format 2 (1 byte)
/// frame:      length (4)  checksum (8)  payload (length bytes)
/// the first frame's payload:  version (length, UTF-8)  savedAt (8)
/// every other frame's:        count (4), then per record:
///   put:     1 (1)  key (length, tagged parts)  updatedAt (8)  flags (1)  value (length, JSON)
///   remove:  2 (1)  key (length, tagged parts)
/// ```
///
/// A whole cache is the header frame and one frame of puts. A write of the changes since the last one appends one
/// frame: its puts and removals replace, key by key, what the frames before it said. Reading replays the frames in
/// order; a frame that is cut short or whose checksum does not match (a write torn by a kill or a power loss, or
/// damage) ends the log there: what comes before it is read, and the rest is reported as ``Cut``. The checksum
/// is ``queryCacheChecksum(_:)`` of the payload.
///
/// Integers are little-endian; dates are the bits of `timeIntervalSinceReferenceDate`, so they read back exactly.
/// Values stay the JSON they were encoded to: reading copies no value, and writing encodes only the changed ones.
/// Format 1 (a whole cache followed by one checksum, written by earlier versions) is still read.
enum QueryCacheFormat {
  static let magic = Array("SSQCACHE".utf8)
  /// The layout earlier versions wrote: read, never written.
  static let wholeFormat: UInt8 = 1
  /// The layout this library writes; a cache of a later layout is dropped as
  /// ``QueryCacheProblem/unsupportedFormat(_:)``.
  static let format: UInt8 = 2
  /// The bytes a frame adds to its payload: its length and its checksum.
  static let frameOverhead = 12
  /// The bytes a put adds to its key and value: its tag, two lengths, the date and the flags.
  static let putOverhead = 18

  private static let putTag: UInt8 = 1
  private static let removeTag: UInt8 = 2

  /// What a cache holds.
  struct Contents {
    var version: String
    var savedAt: Date
    /// The entries as the last frame that is whole left them, one per key.
    var entries: [QueryCacheEntry]
    /// Whether more frames may be appended to these bytes: a cache of this layout that nothing was cut from.
    var isAppendable = false
    /// The bytes a whole cache of `entries` would take: what a compaction would leave.
    var liveBytes = 0
    /// What was cut from the end, if something was.
    var cut: Cut?
  }

  /// The end of a log that was not read: a frame cut short or damaged, and everything after it.
  struct Cut: Equatable {
    /// How many bytes were not read.
    var droppedBytes: Int
    /// What was wrong with the first of them.
    var reason: String
  }

  /// The bytes a whole cache of `entries` takes, written by `version` of the app at `savedAt`: the header frame and
  /// one frame of puts.
  static func encode(version: String, savedAt: Date, entries: some Collection<QueryCacheEntry>) -> Data {
    let size = entries.reduce(64 + version.utf8.count) { $0 + putSize($1) }
    var writer = QueryCacheByteWriter(capacity: size)
    writer.appendRaw(magic)
    writer.appendByte(format)
    appendFrame(to: &writer) { writer in
      writer.appendSized(Array(version.utf8))
      writer.appendUInt64(savedAt.timeIntervalSinceReferenceDate.bitPattern)
    }
    appendFrame(to: &writer) { writer in
      writer.appendUInt32(UInt32(entries.count))
      for entry in entries { appendPut(entry, to: &writer) }
    }
    return Data(writer.bytes)
  }

  /// One frame to append to a cache: the puts of `entries` and the removals of the keys in `removedKeys` (each as
  /// ``QueryKeyCoding`` writes it).
  static func frame(putting entries: [QueryCacheEntry], removing removedKeys: [Data]) -> Data {
    let size = entries.reduce(frameOverhead + 4) { $0 + putSize($1) } + removedKeys.reduce(0) { $0 + 5 + $1.count }
    var writer = QueryCacheByteWriter(capacity: size)
    appendFrame(to: &writer) { writer in
      writer.appendUInt32(UInt32(entries.count + removedKeys.count))
      for entry in entries { appendPut(entry, to: &writer) }
      for key in removedKeys {
        writer.appendByte(removeTag)
        writer.appendSized(key)
      }
    }
    return Data(writer.bytes)
  }

  /// The bytes the put of `entry` takes in a frame.
  static func putSize(_ entry: QueryCacheEntry) -> Int {
    putOverhead + entry.keyBytes.count + entry.value.count
  }

  private static func appendPut(_ entry: QueryCacheEntry, to writer: inout QueryCacheByteWriter) {
    writer.appendByte(putTag)
    writer.appendSized(entry.keyBytes)
    writer.appendUInt64(entry.updatedAt.timeIntervalSinceReferenceDate.bitPattern)
    writer.appendByte(entry.isInvalidated ? 1 : 0)
    writer.appendSized(entry.value)
  }

  /// Appends a frame whose payload `body` writes: its length and checksum are filled in after.
  private static func appendFrame(
    to writer: inout QueryCacheByteWriter,
    _ body: (inout QueryCacheByteWriter) -> Void
  ) {
    let start = writer.bytes.count
    writer.appendUInt32(0)
    writer.appendUInt64(0)
    body(&writer)
    let payloadStart = start + frameOverhead
    let length = writer.bytes.count - payloadStart
    let checksum = writer.bytes.withUnsafeBytes { bytes in
      queryCacheChecksum(UnsafeRawBufferPointer(rebasing: bytes[payloadStart...]))
    }
    writer.overwriteUInt32(UInt32(length), at: start)
    writer.overwriteUInt64(checksum, at: start + 4)
  }

  /// What `data` holds, each value a slice of `data` (nothing is copied); throws when not even the header is whole.
  ///
  /// A log whose end is cut short or damaged is read up to there, and the rest reported in ``Contents/cut``.
  static func decode(_ data: Data) throws(QueryCacheProblem) -> Contents {
    let parsed = data.withUnsafeBytes { bytes -> Result<Parsed, QueryCacheProblem> in
      Result { () throws(QueryCacheProblem) -> Parsed in try parse(bytes) }
    }
    let layout = try parsed.get()
    let base = data.startIndex
    var liveBytes = layout.headerBytes
    // Reserved at once: a restore reads every entry, and growing by doubling would copy them again and again.
    var entries: [QueryCacheEntry] = []
    entries.reserveCapacity(layout.entries.count)
    for entry in layout.entries {
      guard let entry else { continue }
      liveBytes += putOverhead + entry.keyBytes.count + entry.value.count
      entries.append(
        QueryCacheEntry(
          key: entry.key, keyBytes: data[(base + entry.keyBytes.lowerBound)..<(base + entry.keyBytes.upperBound)],
          updatedAt: entry.updatedAt, isInvalidated: entry.isInvalidated,
          value: data[(base + entry.value.lowerBound)..<(base + entry.value.upperBound)]))
    }
    return Contents(
      version: layout.version, savedAt: layout.savedAt, entries: entries,
      isAppendable: layout.format == format && layout.cut == nil, liveBytes: liveBytes, cut: layout.cut)
  }

  /// A cache read, its byte fields as ranges of the input; a removed entry leaves `nil` in its place.
  private struct Parsed {
    var format: UInt8
    var version: String
    var savedAt: Date
    var entries: [ParsedEntry?]
    var headerBytes: Int
    var cut: Cut?
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
    switch bytes[magic.count] {
    case wholeFormat: return try parseWhole(bytes)
    case format: return try parseLog(bytes)
    case let found: throw .unsupportedFormat(Int(found))
    }
  }

  // MARK: Format 2, the log

  private static func parseLog(_ bytes: UnsafeRawBufferPointer) throws(QueryCacheProblem) -> Parsed {
    var offset = magic.count + 1
    let header: Range<Int>
    switch frame(in: bytes, at: offset) {
    case .frame(let payload):
      header = payload
    case .end:
      throw .corrupt(reason: "it ends after its header: truncated")
    case .damaged(let reason):
      throw .corrupt(reason: "its header frame is damaged: \(reason)")
    }
    var parsed: Parsed
    do throws(QueryCacheByteReader.Failure) {
      let headerBytes = UnsafeRawBufferPointer(rebasing: bytes[header])
      var reader = QueryCacheByteReader(headerBytes)
      let versionRange = try reader.readSizedRange("version")
      guard let version = String(validating: headerBytes[versionRange], as: UTF8.self) else {
        throw QueryCacheByteReader.Failure(reason: "its version is not valid UTF-8")
      }
      let savedAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.readUInt64("save date")))
      parsed = Parsed(
        format: format, version: version, savedAt: savedAt, entries: [], headerBytes: header.upperBound, cut: nil)
    } catch {
      throw .corrupt(reason: error.reason)
    }
    offset = header.upperBound
    // Keys are looked up only once a frame may repeat one: a whole cache (the first frame) puts each key once.
    var positions: [QueryKey: Int]?
    func indexed(_ entries: [ParsedEntry?]) -> [QueryKey: Int] {
      var index: [QueryKey: Int] = [:]
      index.reserveCapacity(entries.count)
      for (position, entry) in entries.enumerated() { if let entry { index[entry.key] = position } }
      return index
    }
    var frames = 0
    while true {
      let payload: Range<Int>
      switch frame(in: bytes, at: offset) {
      case .end:
        // A cache is never written without a frame of entries (an empty one is removed): ending before it is a cut.
        guard frames > 0 else { throw .corrupt(reason: "it ends after its header frame: truncated") }
        return parsed
      case .damaged(let reason):
        parsed.cut = Cut(droppedBytes: bytes.count - offset, reason: reason)
        return parsed
      case .frame(let range):
        payload = range
      }
      frames += 1
      if frames == 2 { positions = indexed(parsed.entries) }
      do throws(QueryCacheByteReader.Failure) {
        let records = try parseRecords(bytes, payload)
        // The first frame of entries (a whole cache) is most of a log: its entries are reserved at once. Not the
        // later frames': reserving exactly what each needs would copy the entries at every frame.
        if frames == 1 { parsed.entries.reserveCapacity(records.count) }
        for record in records {
          switch record {
          case .put(let entry):
            if let position = positions?[entry.key] {
              parsed.entries[position] = entry
            } else {
              positions?[entry.key] = parsed.entries.count
              parsed.entries.append(entry)
            }
          case .remove(let key):
            if positions == nil { positions = indexed(parsed.entries) }
            if let position = positions?.removeValue(forKey: key) { parsed.entries[position] = nil }
          }
        }
      } catch {
        // A frame whose checksum matches but whose records do not read: damage the checksum missed, or a writer
        // of another kind. The log ends before it, as at a torn frame.
        parsed.cut = Cut(droppedBytes: bytes.count - offset, reason: error.reason)
        return parsed
      }
      offset = payload.upperBound
    }
  }

  /// What is at `offset`: a whole frame (the range of its payload), the end of the bytes, or a frame cut short or
  /// damaged.
  private enum FrameRead {
    case frame(Range<Int>)
    case end
    case damaged(String)
  }

  private static func frame(in bytes: UnsafeRawBufferPointer, at offset: Int) -> FrameRead {
    let remaining = bytes.count - offset
    guard remaining > 0 else { return .end }
    guard remaining >= frameOverhead else {
      return .damaged("a frame is cut short: \(remaining) bytes, not even its length and checksum")
    }
    let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self))
    guard length <= remaining - frameOverhead else {
      return .damaged("a frame of \(length) bytes is cut short: \(remaining - frameOverhead) bytes follow its header")
    }
    let payload = (offset + frameOverhead)..<(offset + frameOverhead + length)
    guard queryCacheChecksum(UnsafeRawBufferPointer(rebasing: bytes[payload])) == stored else {
      return .damaged("the checksum of a frame of \(length) bytes does not match: it is torn or damaged")
    }
    return .frame(payload)
  }

  private enum ParsedRecord {
    case put(ParsedEntry)
    case remove(QueryKey)
  }

  /// The records of the frame whose payload is `payload`, their ranges as ranges of `bytes`.
  private static func parseRecords(
    _ bytes: UnsafeRawBufferPointer,
    _ payload: Range<Int>
  ) throws(QueryCacheByteReader.Failure) -> [ParsedRecord] {
    var reader = QueryCacheByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<payload.upperBound]))
    reader.skip(to: payload.lowerBound)
    let count = Int(try reader.readUInt32("record count"))
    // Each record takes at least 5 bytes: a count beyond that is damage, not a reason to reserve memory.
    guard count <= payload.count / 5 else {
      throw QueryCacheByteReader.Failure(reason: "a frame claims \(count) records in \(payload.count) bytes")
    }
    var records: [ParsedRecord] = []
    records.reserveCapacity(count)
    for _ in 0..<count {
      let tag = try reader.readByte("record tag")
      let keyRange = try reader.readSizedRange("key")
      let key = try QueryKeyCoding.key(from: UnsafeRawBufferPointer(rebasing: bytes[keyRange]))
      switch tag {
      case putTag:
        let updatedAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.readUInt64("update date")))
        let flags = try reader.readByte("flags")
        let valueRange = try reader.readSizedRange("value")
        records.append(
          .put(
            ParsedEntry(
              key: key, keyBytes: keyRange, updatedAt: updatedAt, isInvalidated: flags & 1 != 0, value: valueRange)))
      case removeTag:
        records.append(.remove(key))
      default:
        throw QueryCacheByteReader.Failure(reason: "a record of unknown kind \(tag)")
      }
    }
    guard reader.isAtEnd else {
      throw QueryCacheByteReader.Failure(reason: "\(payload.upperBound - reader.offset) bytes follow a frame's records")
    }
    return records
  }

  // MARK: Format 1, a whole cache

  private static func parseWhole(_ bytes: UnsafeRawBufferPointer) throws(QueryCacheProblem) -> Parsed {
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
      let headerBytes = reader.offset
      let count = Int(try reader.readUInt32("entry count"))
      // Each entry takes at least 17 bytes: a count beyond that is damage, not a reason to reserve memory.
      guard count <= body.count / 17 else {
        throw QueryCacheByteReader.Failure(reason: "it claims \(count) entries in \(body.count) bytes")
      }
      var entries: [ParsedEntry?] = []
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
      return Parsed(
        format: wholeFormat, version: version, savedAt: savedAt, entries: entries, headerBytes: headerBytes, cut: nil)
    } catch {
      throw .corrupt(reason: error.reason)
    }
  }
}
