import Foundation

/// Appends the fields of a persisted query cache to a byte array: little-endian integers, length-prefixed bytes.
struct QueryCacheByteWriter {
  private(set) var bytes: [UInt8] = []

  init(capacity: Int = 0) {
    bytes.reserveCapacity(capacity)
  }

  mutating func appendByte(_ byte: UInt8) {
    bytes.append(byte)
  }

  mutating func appendUInt32(_ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func appendUInt64(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  /// Appends the length of `data` (which must fit 32 bits), then its bytes.
  mutating func appendSized(_ data: Data) {
    appendUInt32(UInt32(data.count))
    appendRaw(data)
  }

  /// Appends the length of `data` (which must fit 32 bits), then its bytes.
  mutating func appendSized(_ data: [UInt8]) {
    appendUInt32(UInt32(data.count))
    bytes.append(contentsOf: data)
  }

  /// Appends the bytes of `data`, copied in one go.
  mutating func appendRaw(_ data: Data) {
    data.withUnsafeBytes { bytes.append(contentsOf: $0) }
  }

  mutating func appendRaw(_ data: [UInt8]) {
    bytes.append(contentsOf: data)
  }

  /// Writes `value` over the four bytes at `offset`, which were appended before.
  mutating func overwriteUInt32(_ value: UInt32, at offset: Int) {
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
  }

  /// Writes `value` over the eight bytes at `offset`, which were appended before.
  mutating func overwriteUInt64(_ value: UInt64, at offset: Int) {
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
  }
}

/// Reads what ``QueryCacheByteWriter`` wrote, checking every length against the bytes that are there: a damaged or
/// truncated input ends in ``Failure``, never in a read out of bounds.
struct QueryCacheByteReader {
  /// The input ends before a field does, or holds a value no writer writes.
  struct Failure: Error {
    let reason: String
  }

  private let bytes: UnsafeRawBufferPointer
  private(set) var offset: Int

  init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  var isAtEnd: Bool { offset >= bytes.count }

  /// Moves to `offset`, which is within the input.
  mutating func skip(to offset: Int) {
    precondition(offset >= self.offset && offset <= bytes.count)
    self.offset = offset
  }

  /// The next `count` bytes of `field` (named for the failure only: a static string, so that reading builds no text).
  private mutating func take(_ count: Int, for field: StaticString) throws(Failure) -> UnsafeRawBufferPointer {
    guard count >= 0, count <= bytes.count - offset else {
      throw Failure(reason: "the \(field) needs \(count) bytes at offset \(offset), and \(bytes.count - offset) remain")
    }
    let taken = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    offset += count
    return taken
  }

  mutating func readByte(_ field: StaticString) throws(Failure) -> UInt8 {
    try take(1, for: field)[0]
  }

  mutating func readUInt32(_ field: StaticString) throws(Failure) -> UInt32 {
    UInt32(littleEndian: try take(4, for: field).loadUnaligned(as: UInt32.self))
  }

  mutating func readUInt64(_ field: StaticString) throws(Failure) -> UInt64 {
    UInt64(littleEndian: try take(8, for: field).loadUnaligned(as: UInt64.self))
  }

  /// The range of `count` bytes from the current offset, which it then skips.
  mutating func readRange(_ count: Int, _ field: StaticString) throws(Failure) -> Range<Int> {
    let start = offset
    _ = try take(count, for: field)
    return start..<offset
  }

  /// A length (32 bits), then the range of that many bytes.
  mutating func readSizedRange(_ field: StaticString) throws(Failure) -> Range<Int> {
    let count = Int(try readUInt32("length of a field"))
    return try readRange(count, field)
  }

  mutating func readBytes(_ count: Int, _ field: StaticString) throws(Failure) -> UnsafeRawBufferPointer {
    try take(count, for: field)
  }
}

/// A 64-bit hash of `bytes`, eight at a time: the checksum that tells a whole cache from a damaged or truncated one.
///
/// Each step (a word xored in, a multiplication by an odd constant, a right xorshift) is one-to-one in the hash so
/// far and in the word, so a change to any one word always changes the result; the length is hashed last, so a
/// truncation does too. It is not meant to resist someone who forges a cache, only damage.
func queryCacheChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
  func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
    let mixed = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
    return mixed ^ (mixed >> 29)
  }
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  var offset = 0
  while offset + 8 <= bytes.count {
    hash = mix(hash, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    offset += 8
  }
  var tail: UInt64 = 0
  for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
  return mix(mix(hash, tail), UInt64(bytes.count))
}
