public import Foundation

/// Why a ``MutationQueue`` could not queue, restore or run a mutation. Every case names the mutation's key or the
/// queue's file.
///
/// ```swift
/// func add(_ title: String, queue: MutationQueue) {
///   do {
///     try queue.enqueue("add-todo", title)
///   } catch {
///     print(error)  // MutationQueueError.notRegistered(key: ["add-todo"]) if nothing runs it
///   }
/// }
/// ```
public enum MutationQueueError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No mutation is registered under the key or any prefix of it (see
  /// ``MutationQueue/register(_:invalidates:awaitsRefetches:retry:_:)``). An entry read back from the file waits, with
  /// the entries behind it, until its mutation is registered.
  case notRegistered(key: QueryKey)
  /// The mutation registered for the key takes other argument or result types than the ones given.
  case typeMismatch(key: QueryKey, registered: String, given: String)
  /// A part of the key cannot be written to the file: only `String`, `Int`, `Bool`, `Double` and `UUID` parts can.
  case unsupportedKeyPart(key: QueryKey, part: String)
  /// The arguments could not be encoded as JSON, or do not decode back to the same type.
  case unencodableArguments(key: QueryKey, reason: String)
  /// Arguments read back from the file no longer decode as the registered mutation's arguments (an app update
  /// changed their type). The entry waits, with the entries behind it, until the program discards it.
  case undecodableArguments(key: QueryKey, reason: String)
  /// The entry gave up after `attempts` attempts because the program ended (a kill) while its last allowed one ran,
  /// so its outcome was never heard: its ``QueuedMutationRetryPolicy/maxAttempts`` allows no more. The server may
  /// have applied it; ``MutationQueue/retry(_:)`` runs it again with the same idempotency key.
  case attemptsInterrupted(key: QueryKey, attempts: Int)
  /// The queue's file could not be read, or does not hold a queue this version reads. It was moved to `movedTo`
  /// (`nil` if even that failed), and the queue started empty.
  case unreadableFile(url: URL, movedTo: URL?, reason: String)
  /// The queue's file is in use by a queue of another process: ``MutationQueue/restore()`` read nothing, and the
  /// queue neither reads nor writes the file until a later ``MutationQueue/restore()`` finds it free. Give each
  /// process a file of its own.
  case fileInUse(url: URL, reason: String)

  /// A sentence naming the key or the file, and the problem.
  public var description: String {
    switch self {
    case .notRegistered(let key):
      return "no mutation is registered for .mutation(\(key)) or a prefix of it"
    case .typeMismatch(let key, let registered, let given):
      return "the mutation registered for .mutation(\(key)) is a \(registered), not a \(given)"
    case .unsupportedKeyPart(let key, let part):
      return "the part \(part) of .mutation(\(key)) cannot be written to a file: use String, Int, Bool, Double or UUID"
    case .unencodableArguments(let key, let reason):
      return "the arguments of .mutation(\(key)) cannot be written to a file: \(reason)"
    case .undecodableArguments(let key, let reason):
      return "the arguments of .mutation(\(key)) read back from the file no longer decode: \(reason)"
    case .attemptsInterrupted(let key, let attempts):
      return
        "the mutation .mutation(\(key)) gave up: the last of its \(attempts) attempts was interrupted by the program's end, and its retry policy allows no more"
    case .unreadableFile(let url, let movedTo, let reason):
      let kept = movedTo.map { "; it was moved to \($0.path)" } ?? ""
      return "the mutation queue at \(url.path) could not be read (\(reason))\(kept), and the queue started empty"
    case .fileInUse(let url, let reason):
      return "the mutation queue at \(url.path) is in use (\(reason)); nothing was read, and the queue stays paused"
    }
  }
}
