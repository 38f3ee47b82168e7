/// Which writes of one file may land: a write never puts a value's older change over a newer one that the file
/// already holds.
///
/// A value's own saves reach the file in order already (its ``PersistenceStateMachine`` sees to that). What this
/// adds is the flush at exit: it writes a value's newest change on the exiting thread while a save of the same
/// value may be under way on the cooperative pool, about to write an older change. Both ask here, under the file's
/// write lock and in the same critical section as their write, so whichever of the two comes second is skipped if
/// it carries the older change (or the same one: the file holds it already).
///
/// It only decides: the caller holds the file's write lock around each event, writes after
/// ``WriteAction/write``, and reports ``writeSucceeded(sequence:by:)`` once the write (rename and folder sync
/// included) succeeded. A failed write is not recorded, so trying the same change again writes it.
struct FileWriteOrder {
  /// What a write does.
  enum WriteAction: Equatable {
    /// Write: the file holds no change of this value as new as this one.
    case write
    /// Skip the write, reporting success: the file holds this change, or a newer one, of the same value.
    case skipOlder
  }

  /// The newest change of one value the file holds. The value is referred to weakly: once it is freed, its entry
  /// no longer matches anything (an identifier may be reused by a later value), and is dropped on a later write.
  private struct Written {
    weak var owner: (any AnyObject & Sendable)?
    var sequence: UInt64
  }

  private var written: [ObjectIdentifier: Written] = [:]

  /// A write of change number `sequence` of `owner`'s value is about to start. A write without a number (a direct
  /// call of a key's save, outside the value's save task) always writes.
  func writeRequested(sequence: UInt64?, by owner: any AnyObject & Sendable) -> WriteAction {
    guard let sequence, let newest = newestWritten(by: owner), newest >= sequence else { return .write }
    return .skipOlder
  }

  /// The write of change number `sequence` of `owner`'s value succeeded: the file holds it.
  mutating func writeSucceeded(sequence: UInt64?, by owner: any AnyObject & Sendable) {
    guard let sequence else { return }
    if written.count > 1 { written = written.filter { $0.value.owner != nil } }
    if let newest = newestWritten(by: owner), newest >= sequence { return }
    written[ObjectIdentifier(owner)] = Written(owner: owner, sequence: sequence)
  }

  /// The number of the newest change of `owner`'s value that the file holds, if this program wrote one.
  func newestWritten(by owner: any AnyObject & Sendable) -> UInt64? {
    guard let entry = written[ObjectIdentifier(owner)], entry.owner === owner else { return nil }
    return entry.sequence
  }
}
