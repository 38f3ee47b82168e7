/// The token a server bound beyond loopback requires: how it is made, checked and where it is not needed.
enum AccessToken {
  /// 32 bytes from the system's secure generator, in lowercase hexadecimal.
  static func generate() -> String {
    var generator = SystemRandomNumberGenerator()
    var text = ""
    text.reserveCapacity(64)
    for _ in 0..<4 {
      let word = generator.next() as UInt64
      let hex = String(word, radix: 16)
      text += String(repeating: "0", count: 16 - hex.count) + hex
    }
    return text
  }

  /// Whether `token` reads the same in a URL's query without escaping, and is not empty.
  static func isWellFormed(_ token: String) -> Bool {
    !token.isEmpty
      && token.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
          UInt8(ascii: "~"):
          true
        default: false
        }
      }
  }

  /// Whether `host` names this machine's loopback interface only.
  static func isLoopback(_ host: String) -> Bool {
    let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    if bare == "localhost" || bare == "::1" { return true }
    let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
  }

  /// Whether `candidate` equals `expected`, in a time that depends on `expected`'s length only: every byte is compared
  /// whatever the first difference, so the time of an answer tells nothing about how much of a guess was right.
  static func matches(_ candidate: Substring, expected: String) -> Bool {
    let expectedBytes = Array(expected.utf8)
    let candidateBytes = Array(candidate.utf8)
    var difference = UInt8(truncatingIfNeeded: expectedBytes.count ^ candidateBytes.count)
    difference |= expectedBytes.count == candidateBytes.count ? 0 : 1
    for index in expectedBytes.indices {
      let other = index < candidateBytes.count ? candidateBytes[index] : ~expectedBytes[index]
      difference |= expectedBytes[index] ^ other
    }
    return difference == 0
  }
}
