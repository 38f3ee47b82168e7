/// A fake presence server: reports peers joining and leaving a room, decided by the seeded randomness.
actor PresenceBackend {
  /// A change in who is in the room.
  enum Event: Sendable, Equatable {
    case joined(String)
    case left(String)
  }

  private let network: Network
  private let names = ["Grace", "Linus", "Margaret", "Ken", "Barbara"]
  private var present: [String] = []

  init(network: Network) {
    self.network = network
  }

  /// Waits one round trip and reports the next change: mostly joins while the room is small, then a mix.
  func nextEvent() async throws -> Event {
    try await network.roundTrip("the presence update")
    let absent = names.filter { !present.contains($0) }
    if present.isEmpty || (!absent.isEmpty && (present.count < 3 || network.random.nextUnit() < 0.5)) {
      let name = absent[network.random.next(in: 0...(absent.count - 1))]
      present.append(name)
      return .joined(name)
    }
    let name = present.remove(at: network.random.next(in: 0...(present.count - 1)))
    return .left(name)
  }
}
