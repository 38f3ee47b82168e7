import Foundation
import SharedState

/// Working offline, across a restart of the process: notes are loaded online, two are added offline (the feed shows
/// them at once and that they wait for the network), the process ends, a new process restores the cached feed and
/// the queued edits, goes online, and each edit reaches the server once.
///
/// `swift run Demo offline` runs each half in a process of its own (this executable, started again with
/// `--offline-phase`); the tests run the halves in one process, each with a registry of its own.
enum OfflineScenario {
  static let notesKey: QueryKey = ["notes"]

  /// One launch of the notes app: its cached feed, its queue of edits and its network switch.
  struct App {
    let notes: Shared<OperationState<[String]>>
    let queue: MutationQueue
    let network: ManualOnlineStatus
  }

  /// The optimistic change of an added note: shown in the feed until the server's list replaces it.
  static let insert = OptimisticMutation { (note: String, cache: OptimisticCache) in
    cache.update(notesKey, as: OperationState<[String]>.self) { notes in
      if notes.value?.contains(note) == false { notes.value?.append(note) }
    }
  }

  /// Launches the app in `folder` as an app does at launch: restores the persisted query cache, holds the feed,
  /// registers the mutation functions, then restores the queue (whose edits show again in the feed).
  static func launch(in folder: URL, backend: NotesBackend, online: Bool) async -> App {
    let store = SharedRegistry.current.queries
    await store.persistCache(
      QueryCachePersistence(persister: .file(folder.appendingPathComponent("queries.cache")), version: "1"))
    let network = ManualOnlineStatus(isOnline: online)
    let notes = Shared(
      wrappedValue: OperationState<[String]>(),
      .query(notesKey, options: QueryOptions(staleTime: .seconds(3_600))) { await backend.notes() })
    let queue = MutationQueue(file: folder.appendingPathComponent("mutations.json"), network: network)
    queue.register(.mutation("add-note"), invalidates: [notesKey], awaitsRefetches: true, optimistic: insert) {
      (note: String, context) in
      try await backend.add(note, idempotencyKey: context.idempotencyKey)
    }
    _ = try? queue.restore()
    return App(notes: notes, queue: queue, network: network)
  }

  /// The first process: loads the feed online, goes offline, adds two notes, saves everything and ends.
  @MainActor
  static func edit(in folder: URL) async -> [String] {
    let console = DemoEnvironment.current.console
    let backend = NotesBackend(url: folder.appendingPathComponent("server.json"))
    let app = await launch(in: folder, backend: backend, online: true)
    for await state in app.notes.values where state.value != nil { break }
    console.line("online: the feed shows \(app.notes.wrappedValue.value ?? []) from the server")
    app.network.setOnline(false)
    for await state in app.queue.state.values where state.isPaused { break }
    for note in ["Buy stamps", "Call the plumber"] {
      do {
        try app.queue.enqueue("add-note", note)
      } catch {
        console.line("could not queue \(note): \(error)", .failure)
      }
    }
    let queued = app.queue.state.wrappedValue
    console.line(
      "offline: the feed shows \(app.notes.wrappedValue.value ?? []); "
        + "\(queued.entries.count) edits \(queued.isPaused ? "wait for the network" : "are being sent")")
    do {
      try await SharedRegistry.current.flush()
    } catch {
      console.line("not everything was saved: \(error)", .failure)
    }
    let saved = app.queue.entries.filter(\.isSaved).count
    console.line("the process ends with \(saved) edits saved in \(app.queue.url.lastPathComponent)")
    return app.queue.entries.map { $0.id.uuidString }
  }

  /// The second process: restores the feed and the queued edits while offline, goes online, and waits until every
  /// edit reached the server; returns what the server received.
  @MainActor
  static func resume(in folder: URL) async -> NotesBackend.Contents {
    let console = DemoEnvironment.current.console
    let backend = NotesBackend(url: folder.appendingPathComponent("server.json"))
    let readsBefore = await backend.contents().reads
    let app = await launch(in: folder, backend: backend, online: false)
    let restored = app.queue.state.wrappedValue
    let askedServer = await backend.contents().reads > readsBefore
    console.line(
      "started again, offline: the feed shows \(app.notes.wrappedValue.value ?? []) "
        + "(\(askedServer ? "fetched" : "from the cache"), with \(restored.entries.count) queued edits shown again)")
    app.network.setOnline(true)
    for await state in app.queue.state.values where state.entries.isEmpty { break }
    console.line("online: the queue is empty; the feed shows the server's \(app.notes.wrappedValue.value ?? [])")
    do {
      try await SharedRegistry.current.flush()
    } catch {
      console.line("not everything was saved: \(error)", .failure)
    }
    return await backend.contents()
  }
}
