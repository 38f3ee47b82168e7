/// The save that runs in the current task: whose value it saves, and the number of the change it saves.
///
/// An update the key reports from inside its own save is then known as what the store holds after that save, and a
/// store that can be written at exit too (file storage) knows which change each write carries, so the exit's write
/// and a save under way never put an older change over a newer one.
struct SaveScope: Sendable {
  /// The value being saved.
  let persistence: ObjectIdentifier
  /// The number of the change being saved.
  let sequence: UInt64

  @TaskLocal static var current: SaveScope?

  /// The number of the change the current task saves for the value `valueID`; `nil` outside such a save.
  static func sequence(savingFor valueID: ObjectIdentifier) -> UInt64? {
    guard let current, current.persistence == valueID else { return nil }
    return current.sequence
  }
}
