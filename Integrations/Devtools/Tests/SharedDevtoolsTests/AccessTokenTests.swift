import Testing

@testable import SharedDevtools

@Suite struct AccessTokenTests {
  @Test func generatedTokensAreLongHexAndDistinct() {
    let tokens = (0..<20).map { _ in AccessToken.generate() }
    #expect(Set(tokens).count == tokens.count)
    for token in tokens {
      #expect(token.count == 64)
      #expect(token.allSatisfy { $0.isHexDigit })
      #expect(AccessToken.isWellFormed(token))
    }
  }

  @Test func onlyTheExactTokenMatches() {
    let token = "abc123"
    #expect(AccessToken.matches("abc123", expected: token))
    for wrong in ["", "abc12", "abc1234", "abc124", "ABC123", "xbc123", "abc123abc123"] {
      #expect(!AccessToken.matches(Substring(wrong), expected: token), "\(wrong)")
    }
  }

  @Test func loopbackAddresses() {
    for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] {
      #expect(AccessToken.isLoopback(host), "\(host)")
    }
    for host in ["0.0.0.0", "192.168.1.2", "::", "example.com", "127.0.0.1.example.com", "128.0.0.1", ""] {
      #expect(!AccessToken.isLoopback(host), "\(host)")
    }
  }

  @Test func aServerBeyondLoopbackGetsATokenUnlessGivenOne() {
    #expect(DevtoolsServer(host: "0.0.0.0").token?.count == 64)
    #expect(DevtoolsServer(host: "0.0.0.0", token: "mine").token == "mine")
    #expect(DevtoolsServer(host: "127.0.0.1").token == nil)
  }
}
