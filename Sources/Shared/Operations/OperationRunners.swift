import Synchronization

/// The runners of one root value, one per path to an operation state inside it, so runs on `$screen.posts` and on
/// `$screen.drafts`, or on `$list[0]` and `$list[1]`, are coordinated separately even when both hold the same type.
///
/// The table holds its runners weakly: the runs under way on a member keep its runner alive (each run's task holds
/// it), and a runner whose runs have all ended leaves the table when it is freed, so running on many distinct members
/// leaves nothing behind. A runner freed with no run under way had nothing left to coordinate; the next run on that
/// member starts a fresh one.
@usableFromInline
final class OperationRunners: Sendable {
  /// A path by key-path identity: equal key paths (with equal subscript arguments) are the same path.
  struct Path: Hashable, Sendable {
    let keyPaths: [any AnyKeyPath & Sendable]
    /// The runner's type, `OperationRunner<Value>`: one path can hold runners of several types.
    let runner: ObjectIdentifier

    static func == (lhs: Path, rhs: Path) -> Bool {
      guard lhs.runner == rhs.runner, lhs.keyPaths.count == rhs.keyPaths.count else { return false }
      for index in lhs.keyPaths.indices where (lhs.keyPaths[index] as AnyKeyPath) != rhs.keyPaths[index] {
        return false
      }
      return true
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(runner)
      for keyPath in keyPaths { hasher.combine(keyPath as AnyKeyPath) }
    }
  }

  /// A table entry: the runner, while anything holds it.
  private struct Entry {
    weak var runner: AnyObject?
  }

  private let runners = Lock<[Path: Entry]>([:])

  @usableFromInline
  init() {}

  /// How many runners the table holds.
  var count: Int { runners.withLock { $0.count } }

  /// The runner for the value of type `Value` at `path` from the root; made on first use.
  @usableFromInline
  func runner<Value: OperationTrackable>(
    for path: [any AnyKeyPath & Sendable], as _: Value.Type
  ) -> OperationRunner<Value> {
    let key = Path(keyPaths: path, runner: ObjectIdentifier(OperationRunner<Value>.self))
    return runners.withLock { runners in
      if let existing = runners[key]?.runner {
        guard let runner = existing as? OperationRunner<Value> else {
          preconditionFailure("the runner for \(path) is not an OperationRunner<\(Value.self)>")
        }
        return runner
      }
      let made = OperationRunner<Value>(home: (self, key))
      runners[key] = Entry(runner: made)
      return made
    }
  }

  /// A runner of this table was freed: its entry leaves, unless a new runner already took its place.
  func remove(_ key: Path) {
    let removed = runners.withLock { runners -> Entry? in
      guard let entry = runners[key], entry.runner == nil else { return nil }
      return runners.removeValue(forKey: key)
    }
    withExtendedLifetime(removed) {}  // The path's key paths go here, after the lock.
  }
}
