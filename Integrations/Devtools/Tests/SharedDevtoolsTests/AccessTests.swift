import Foundation
import NIOHTTP1
import SharedDevtools
import SharedState
import Testing

@Suite struct AccessTests {
  @Test func byDefaultItListensOnLoopbackWithoutAToken() async throws {
    let server = DevtoolsServer(registry: SharedRegistry())
    #expect(server.host == "127.0.0.1")
    #expect(server.token == nil)
    let (host, url, status) = try await withServer(registry: SharedRegistry()) { running in
      (running.host, running.url, try await request(running, "/api/snapshot").status)
    }
    #expect(host == "127.0.0.1")
    #expect(url.query == nil)
    #expect(url.absoluteString.hasPrefix("http://127.0.0.1:"))
    #expect(status == 200)
  }

  @Test func anyOtherAddressRequiresTheToken() async throws {
    let registry = SharedRegistry()
    let answers = try await withServer(registry: registry, host: "0.0.0.0") { running in
      let token = try #require(running.token)
      #expect(running.url.query == "token=\(token)")
      return [
        "page without": try await request(running, "/").status,
        "snapshot without": try await request(running, "/api/snapshot").status,
        "snapshot with a wrong one": try await request(running, "/api/snapshot", token: token + "0").status,
        "snapshot with a prefix": try await request(running, "/api/snapshot", token: String(token.dropLast())).status,
        "events without": try await EventStreamReader(running).status,
        "action without": try await act(running, key: "query:[]", action: "refetch").status,
        "page with": try await request(running, "/", token: token).status,
        "snapshot with": try await request(running, "/api/snapshot", token: token).status,
        "events with": try await EventStreamReader(running, token: token).status,
        "snapshot with a bearer header":
          try await request(running, "/api/snapshot", headers: [("Authorization", "Bearer \(token)")]).status,
      ]
    }
    let refused: Set = [
      "page without", "snapshot without", "snapshot with a wrong one", "snapshot with a prefix", "events without",
      "action without",
    ]
    for (name, status) in answers {
      #expect(status == (refused.contains(name) ? 401 : 200), "\(name)")
    }
  }

  @Test func aRefusedRequestSaysWhy() async throws {
    let answer = try await withServer(registry: SharedRegistry(), host: "0.0.0.0") { running in
      try await request(running, "/api/snapshot")
    }
    #expect(answer.status == 401)
    #expect(try answer.json["error"] as? String == "unauthorized")
  }

  @Test func aGivenTokenIsRequiredEvenOnLoopback() async throws {
    let (without, with, url) = try await withServer(registry: SharedRegistry(), token: "s3cret-token") { running in
      (
        try await request(running, "/api/snapshot").status,
        try await request(running, "/api/snapshot", token: "s3cret-token").status,
        running.url
      )
    }
    #expect(without == 401)
    #expect(with == 200)
    #expect(url.query == "token=s3cret-token")
  }

  @Test func withoutATokenOnlyLoopbackHostsAreAnswered() async throws {
    let (foreign, local) = try await withServer(registry: SharedRegistry()) { running in
      (
        try await request(running, "/api/snapshot", headers: [("Host", "attacker.example")]),
        try await request(running, "/api/snapshot", headers: [("Host", "localhost:\(running.port)")])
      )
    }
    #expect(foreign.status == 403)
    #expect(try foreign.json["error"] as? String == "forbiddenHost")
    #expect(local.status == 200)
  }

  @Test func theHostHeaderIsParsedWhole() async throws {
    let hosts = [
      "[::1]evil.example", "127.0.0.1:1@evil.example", "127.0.0.1.evil.example", "localhost:80:80", "[::1",
      "127.0.0.1:", "127.0.0.1:port", "localhost@evil.example",
    ]
    let answers = try await withServer(registry: SharedRegistry()) { running in
      var answers: [String: Int] = [:]
      for host in hosts {
        answers[host] = try await request(running, "/api/snapshot", headers: [("Host", host)]).status
      }
      answers["[::1]:\(running.port)"] =
        try await request(running, "/api/snapshot", headers: [("Host", "[::1]:\(running.port)")]).status
      return answers
    }
    for host in hosts { #expect(answers[host] == 403, "\(host)") }
    #expect(answers.values.filter { $0 == 200 }.count == 1)
  }

  @Test func theEventStreamAndActionsRefuseAnotherSitesPage() async throws {
    let registry = SharedRegistry()
    let answers = try await withServer(registry: registry) { running in
      let own = "http://127.0.0.1:\(running.port)"
      return [
        // The stream's status only: a stream let through would never end.
        "events from elsewhere":
          try await EventStreamReader(running, headers: [("Origin", "http://evil.example")]).status,
        "events from null": try await EventStreamReader(running, headers: [("Origin", "null")]).status,
        "action from elsewhere":
          try await request(
            running, "/api/actions", method: .POST,
            headers: [("Origin", "http://evil.example"), ("Content-Type", "application/json")],
            body: #"{"key":"query:[]","action":"refetch"}"#
          ).status,
        "snapshot from its own page": try await request(running, "/api/snapshot", headers: [("Origin", own)]).status,
      ]
    }
    #expect(answers["events from elsewhere"] == 403)
    #expect(answers["events from null"] == 403)
    #expect(answers["action from elsewhere"] == 403)
    #expect(answers["snapshot from its own page"] == 200)
  }

  @Test func theBearerSchemeIsReadInAnyCase() async throws {
    let statuses = try await withServer(registry: SharedRegistry(), token: "s3cret-token") { running in
      var statuses: [Int] = []
      for scheme in ["Bearer", "bearer", "BEARER"] {
        statuses.append(
          try await request(running, "/api/snapshot", headers: [("Authorization", "\(scheme) s3cret-token")]).status)
      }
      statuses.append(
        try await request(running, "/api/snapshot", headers: [("Authorization", "Basic s3cret-token")]).status)
      return statuses
    }
    #expect(statuses == [200, 200, 200, 401])
  }

  @Test func boundToEveryAddressTheURLIsOneABrowserOpens() async throws {
    let (url, token, status) = try await withServer(registry: SharedRegistry(), host: "0.0.0.0") { running in
      (running.url, running.token, try await request(running, "/api/snapshot", token: running.token).status)
    }
    #expect(url.host == "127.0.0.1")
    #expect(url.query == "token=\(try #require(token))")
    #expect(status == 200)
  }

  @Test func aBadPortOrTokenIsANamedError() async throws {
    await #expect(throws: DevtoolsServerError.invalidPort(70_000)) {
      try await DevtoolsServer(registry: SharedRegistry(), port: 70_000).start()
    }
    await #expect(throws: DevtoolsServerError.invalidToken) {
      try await DevtoolsServer(registry: SharedRegistry(), token: "has space").start()
    }
    await #expect(throws: DevtoolsServerError.invalidToken) {
      try await DevtoolsServer(registry: SharedRegistry(), token: "").start()
    }
  }

  @Test func aTakenPortIsANamedError() async throws {
    try await withServer(registry: SharedRegistry()) { running in
      let error = await #expect(throws: DevtoolsServerError.self) {
        try await DevtoolsServer(registry: SharedRegistry(), port: running.port).start()
      }
      guard case .cannotBind(let host, let port, _) = error else {
        Issue.record("expected cannotBind, got \(String(describing: error))")
        return
      }
      #expect(host == "127.0.0.1")
      #expect(port == running.port)
    }
  }
}
