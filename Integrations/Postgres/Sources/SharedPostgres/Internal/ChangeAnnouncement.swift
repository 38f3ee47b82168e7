import Foundation

/// The payload of a notification on the channel: which key changed, to which version, by which instance, and the
/// value's JSON when it fitted.
///
/// It reads `VERSION WRITER KEY_BYTES KEY` followed directly by the value's JSON, if any: the version in decimal,
/// the writer (an instance's UUID) and the key's length in UTF-8 bytes, each followed by one space, then the key
/// and the JSON, neither escaped. The server writes the version; the writer builds the rest
/// (``suffix(key:writer:json:)``), so neither end builds or parses a JSON object around the value.
struct ChangeAnnouncement: Sendable, Equatable {
  var key: String
  var version: Int64
  var writer: String
  var value: Data?

  /// PostgreSQL refuses payloads of 8000 bytes or more.
  static let maximumPayloadBytes = 7_999
  /// The most bytes a version takes in decimal (`Int64.max` has 19 digits).
  private static let maximumVersionBytes = 19

  /// What follows the version in the payload of a write of `json` to `key` by `writer`: with the JSON when the
  /// payload fits, without it (listeners then read the row) when not.
  static func suffix(key: String, writer: String, json: Data) -> String {
    let header = " \(writer) \(key.utf8.count) \(key)"
    let fits = maximumVersionBytes + header.utf8.count + json.count <= maximumPayloadBytes
    return fits ? header + String(decoding: json, as: UTF8.self) : header
  }

  static func parse(_ payload: String) -> Self? {
    let bytes = Array(payload.utf8)
    var position = 0
    func field() -> Substring? {
      guard let space = bytes[position...].firstIndex(of: UInt8(ascii: " ")) else { return nil }
      defer { position = space + 1 }
      return Substring(decoding: bytes[position..<space], as: UTF8.self)
    }
    guard let version = field().flatMap({ Int64($0) }), let writer = field(),
      let keyBytes = field().flatMap({ Int($0) }), keyBytes >= 0, bytes.count - position >= keyBytes
    else { return nil }
    let key = String(decoding: bytes[position..<position + keyBytes], as: UTF8.self)
    let rest = bytes[(position + keyBytes)...]
    return Self(key: key, version: version, writer: String(writer), value: rest.isEmpty ? nil : Data(rest))
  }

  var change: StoredChange {
    StoredChange(version: version, json: value)
  }
}
