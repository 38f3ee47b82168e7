/// A fake authentication server.
actor AuthBackend {
  private let network: Network
  private var sentCodes: [String: String] = [:]
  private var guests = 0

  init(network: Network) {
    self.network = network
  }

  func signInAsGuest() async throws -> User {
    try await network.roundTrip("the guest sign-in")
    guests += 1
    return User(id: "guest-\(guests)", name: "Guest \(guests)", email: nil)
  }

  /// Sends a code; the demo's "email" is the code itself, returned so the narration can show it.
  func sendMagicCode(to email: String) async throws -> String {
    try await network.roundTrip("the magic code")
    let code = String(100_000 + network.random.next(in: 0...899_999))
    sentCodes[email] = code
    return code
  }

  func verifyMagicCode(email: String, code: String) async throws -> User {
    try await network.roundTrip("the code check")
    guard sentCodes[email] == code else { throw DemoError.invalidCode }
    sentCodes[email] = nil
    return User(id: "user-\(email)", name: email.split(separator: "@").first.map(String.init) ?? email, email: email)
  }

  func signOut() async throws {
    try await network.roundTrip("the sign-out")
  }
}
