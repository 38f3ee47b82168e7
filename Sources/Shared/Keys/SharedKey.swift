/// Names a shared value and says where it lives: a key whose holders may change the value, which it saves.
///
/// A `SharedKey` is a ``SharedReaderKey`` that also stores changes: it loads the value when the first holder
/// appears, saves it after changes, and reports changes made outside the program. Only such a key gives a writable
/// ``Shared``; ``FileStorageKey`` is one. Values kept in memory only use ``InMemoryKey``, which stores nothing.
///
/// A synchronous store resumes the load's continuation before `load` returns:
///
/// ```swift
/// struct UserDefaultsKey: SharedKey {
///   let name: String
///   var id: String { name }
///
///   func load(context: SharedKeyContext<String>, continuation: SharedLoadContinuation<String>) {
///     continuation.resume(returning: UserDefaults.standard.string(forKey: name))
///   }
///
///   func save(_ value: String, context: SharedKeyContext<String>) async throws {
///     UserDefaults.standard.set(value, forKey: name)
///   }
/// }
/// ```
///
/// A remote store resumes it from a task; holders see ``Shared/isLoading`` until the value arrives, and a change
/// made meanwhile wins over it (and is saved as usual):
///
/// ```swift
/// struct RemoteProfileKey: SharedKey {
///   let client: ProfileClient
///   let userID: Int
///   var id: Int { userID }
///
///   func load(context: SharedKeyContext<Profile>, continuation: SharedLoadContinuation<Profile>) {
///     Task {
///       do {
///         continuation.resume(returning: try await client.profile(userID))
///       } catch {
///         continuation.resume(throwing: error)
///       }
///     }
///   }
///
///   func save(_ value: Profile, context: SharedKeyContext<Profile>) async throws {
///     try await client.update(value, for: userID)
///   }
/// }
///
/// func showProfile(client: ProfileClient) async throws {
///   @Shared(RemoteProfileKey(client: client, userID: 42)) var profile = Profile()
///   if $profile.isLoading { print("loading…") }
///   try await $profile.load()   // waits for a fresh load
///   print(profile)
/// }
/// ```
///
/// > Important: The hooks are called outside every lock of the framework, so they may read or write the shared
/// > value through the context. ``save(_:context:)`` calls for one value never overlap and arrive in order.
/// > ``SharedReaderKey/load(context:continuation:)`` must resume its continuation exactly once.
public protocol SharedKey<Value>: SharedReaderKey {
  /// When saves happen after a change. The default is ``SharedSaveSchedule/immediate``.
  var saveSchedule: SharedSaveSchedule { get }

  /// Stores a value after it changed.
  ///
  /// Calls never overlap; each one gets the newest value at the time it starts, so a quick series of changes may
  /// be saved once. A change is never saved after a newer one, whatever order the changes' save requests arrive in.
  /// A value the key loaded, or reported through its context, is not saved back.
  ///
  /// ```swift
  /// func save(_ value: Profile, context: SharedKeyContext<Profile>) async throws {
  ///   try await client.update(value, for: userID)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value to store.
  ///   - context: The context of the shared value.
  /// - Throws: When the value could not be stored; the error is exposed as ``Shared/saveError``.
  func save(_ value: Value, context: SharedKeyContext<Value>) async throws
}

extension SharedKey {
  /// Saves start right after a change.
  public var saveSchedule: SharedSaveSchedule { .immediate }
}
