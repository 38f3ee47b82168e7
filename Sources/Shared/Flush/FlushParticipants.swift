/// The participants of one registry's flushes: what ``SharedRegistry/flush()`` and the flush at exit write.
///
/// Participants are held weakly, so joining costs a participant nothing when it goes. The list itself is kept alive
/// by its registry and by each value that joined it, so a value whose save still waits after its registry was
/// released is still written at exit. The first participant to join makes the list known to ``ExitFlush``.
final class FlushParticipants: Sendable {
  private struct Member {
    weak var participant: (any FlushParticipant)?
    /// When it joined: flushes report failures in this order.
    let order: UInt64
  }

  private struct Members {
    var byIdentity: [ObjectIdentifier: Member] = [:]
    var joined: UInt64 = 0
    /// The count above which freed members are next dropped.
    var pruneAbove = 64
    var isWatchedAtExit = false
  }

  private let members = Lock(Members())

  init() {}

  /// Adds `participant` to the registry's flushes, until it is freed.
  func join(_ participant: any FlushParticipant) {
    // The members found alive are released after the lock.
    let firstJoin = members.withLockReleasingAfter { members -> (result: Bool, released: [any FlushParticipant]) in
      var alive: [any FlushParticipant] = []
      if members.byIdentity.count > members.pruneAbove {
        // Dropping freed members only when the list doubled keeps each join constant on average. What is found
        // alive is handed out, so no member's last reference can go under the lock.
        members.byIdentity = members.byIdentity.filter { _, member in
          guard let participant = member.participant else { return false }
          alive.append(participant)
          return true
        }
        members.pruneAbove = max(64, members.byIdentity.count * 2)
      }
      members.joined += 1
      members.byIdentity[ObjectIdentifier(participant)] = Member(participant: participant, order: members.joined)
      defer { members.isWatchedAtExit = true }
      return (!members.isWatchedAtExit, alive)
    }
    if firstJoin { ExitFlush.watch(self) }
  }

  /// The participants alive now, in the order they joined.
  var current: [any FlushParticipant] {
    let alive = members.withLock { members in
      members.byIdentity.values.compactMap { member in member.participant.map { (member.order, $0) } }
    }
    return alive.sorted { $0.0 < $1.0 }.map(\.1)
  }
}
