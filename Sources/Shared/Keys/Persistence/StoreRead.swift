/// Where a read of the store began: what a value read from the store is checked against before it is applied.
///
/// Taken with ``PersistenceStateMachine/storeReadStarted(at:)`` before the store is read.
struct StoreRead: Sendable, Equatable {
  /// The newest change number when the read began; changes numbered above it were made after.
  let sequence: UInt64
  /// How many saves had started when the read began.
  let savesStarted: UInt64
  /// Whether a save was running when the read began (the read may then see the store before or after it).
  let duringSave: Bool
}
