import Synchronization

/// The coordinators of one root value, one per path to an operation state inside it, so runs on `$screen.posts` and on
/// `$screen.drafts`, or on `$list[0]` and `$list[1]`, are coordinated separately even when both hold the same type.
///
/// The table holds its coordinators weakly: the runs under way on a member keep its coordinator alive (each run's task holds
/// it), and a coordinator whose runs have all ended leaves the table when it is freed, so running on many distinct members
/// leaves nothing behind. A coordinator freed with no run under way had nothing left to coordinate; the next run on that
/// member starts a fresh one.
@usableFromInline
final class RunCoordinatorTable: Sendable {
  /// A path by key-path identity: equal key paths (with equal subscript arguments) are the same path.
  struct Path: Hashable, Sendable {
    let keyPaths: [any AnyKeyPath & Sendable]
    /// The coordinator's type, `RunCoordinator<Value>`: one path can hold coordinators of several types.
    let coordinator: ObjectIdentifier

    static func == (lhs: Path, rhs: Path) -> Bool {
      guard lhs.coordinator == rhs.coordinator, lhs.keyPaths.count == rhs.keyPaths.count else { return false }
      for index in lhs.keyPaths.indices where (lhs.keyPaths[index] as AnyKeyPath) != rhs.keyPaths[index] {
        return false
      }
      return true
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(coordinator)
      for keyPath in keyPaths { hasher.combine(keyPath as AnyKeyPath) }
    }
  }

  /// A table entry: the coordinator, while anything holds it.
  private struct Entry {
    weak var coordinator: AnyObject?
  }

  private let coordinators = Lock<[Path: Entry]>([:])

  @usableFromInline
  init() {}

  /// How many coordinators the table holds.
  var count: Int { coordinators.withLock { $0.count } }

  /// The coordinator for the value of type `Value` at `path` from the root; made on first use.
  @usableFromInline
  func coordinator<Value: OperationTrackable>(
    for path: [any AnyKeyPath & Sendable], as _: Value.Type
  ) -> RunCoordinator<Value> {
    let key = Path(keyPaths: path, coordinator: ObjectIdentifier(RunCoordinator<Value>.self))
    return coordinators.withLock { coordinators in
      if let existing = coordinators[key]?.coordinator {
        guard let coordinator = existing as? RunCoordinator<Value> else {
          preconditionFailure("the coordinator for \(path) is not a RunCoordinator<\(Value.self)>")
        }
        return coordinator
      }
      let made = RunCoordinator<Value>(home: (self, key))
      coordinators[key] = Entry(coordinator: made)
      return made
    }
  }

  /// A coordinator of this table was freed: its entry leaves, unless a new coordinator already took its place.
  func remove(_ key: Path) {
    // The path's key paths are released after the lock.
    coordinators.withLockReleasingAfter { coordinators -> (result: Void, released: Entry?) in
      guard let entry = coordinators[key], entry.coordinator == nil else { return ((), nil) }
      return ((), coordinators.removeValue(forKey: key))
    }
  }
}
