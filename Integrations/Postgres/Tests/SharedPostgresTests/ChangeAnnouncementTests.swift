import Foundation
import Testing

@testable import SharedPostgres

@Suite struct ChangeAnnouncementTests {
  @Test func aPayloadReadsBackAsTheChangeItAnnounces() throws {
    let json = Data(#"{"name":"a b\nc","limit":3}"#.utf8)
    for key in ["flags", "with spaces 3 x", "ключ-🔑", ""] {
      let payload = "42" + ChangeAnnouncement.suffix(key: key, writer: "writer-1", json: json)
      let announcement = try #require(ChangeAnnouncement.parse(payload))
      #expect(announcement == ChangeAnnouncement(key: key, version: 42, writer: "writer-1", value: json))
    }
  }

  @Test func aValueTooLargeForTheNotificationIsLeftOutAndTheRestStillFits() throws {
    let json = Data(("\"" + String(repeating: "x", count: 8_000) + "\"").utf8)
    let payload = "\(Int64.max)" + ChangeAnnouncement.suffix(key: "large", writer: "writer-1", json: json)
    #expect(payload.utf8.count <= ChangeAnnouncement.maximumPayloadBytes)
    let announcement = try #require(ChangeAnnouncement.parse(payload))
    #expect(announcement == ChangeAnnouncement(key: "large", version: .max, writer: "writer-1", value: nil))
    // The largest value that fits is still carried.
    let header = "\(Int64.max)" + ChangeAnnouncement.suffix(key: "large", writer: "writer-1", json: Data())
    let largest = Data(repeating: UInt8(ascii: "1"), count: ChangeAnnouncement.maximumPayloadBytes - header.utf8.count)
    let fitting = "\(Int64.max)" + ChangeAnnouncement.suffix(key: "large", writer: "writer-1", json: largest)
    #expect(fitting.utf8.count == ChangeAnnouncement.maximumPayloadBytes)
    #expect(ChangeAnnouncement.parse(fitting)?.value == largest)
  }

  @Test func aPayloadInAnotherFormatIsIgnored() {
    for payload in ["", "12", "x writer 3 abc", "12 writer", "12 writer 9 abc", "12 writer -1 abc", #"{"key":"a"}"#] {
      #expect(ChangeAnnouncement.parse(payload) == nil)
    }
  }
}
