import Foundation

/// The payload of a notification on the channel: which key changed, to which version, by which instance, and the
/// value's JSON when it fitted.
struct ChangeAnnouncement: Decodable, Sendable {
  var key: String
  var version: Int64
  var writer: String
  var value: String?

  static func parse(_ payload: String) -> Self? {
    try? JSONDecoder().decode(Self.self, from: Data(payload.utf8))
  }

  var change: StoredChange {
    StoredChange(version: version, json: value.map { Data($0.utf8) })
  }
}
