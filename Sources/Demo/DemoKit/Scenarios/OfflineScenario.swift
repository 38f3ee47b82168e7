import Foundation
import SharedState

/// Working offline, across a restart of the process: notes and two pages of a news feed are loaded online, two notes
/// are added offline (the feed shows them at once and that they wait for the network), the process ends, a new
/// process restores the cached notes, the news feed's pages and the queued edits, goes online, and each edit reaches
/// the server once.
///
/// `swift run Demo offline` runs each half in a process of its own (this executable, started again with
/// `--offline-phase`); the tests run the halves in one process, each with a registry of its own.
enum OfflineScenario {
  static let notesKey: QueryKey = ["notes"]
  static let newsKey: QueryKey = ["news"]

  /// One launch of the notes app: its cached feed, its queue of edits and its network switch.
  struct App {
    let notes: Shared<OperationState<[String]>>
    /// A paginated feed: its pages are persisted with the cache, so the pages scrolled show after a restart.
    let news: Shared<PaginatedState<Int, [String]>>
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
    let nextPage: @Sendable ([String], Int) -> Int? = { page, id in
      page.count == NotesBackend.newsPageSize ? id + 1 : nil
    }
    let news = Shared(
      wrappedValue: PaginatedState<Int, [String]>(),
      .paginatedQuery(newsKey, initialPage: 0, nextPage: nextPage, options: QueryOptions(staleTime: .seconds(3_600))) {
        page in await backend.newsPage(page)
      })
    let queue = MutationQueue(file: folder.appendingPathComponent("mutations.json"), network: network)
    queue.register(.mutation("add-note"), invalidates: [notesKey], awaitsRefetches: true, optimistic: insert) {
      (note: String, context) in
      try await backend.add(note, idempotencyKey: context.idempotencyKey)
    }
    _ = try? queue.restore()
    return App(notes: notes, news: news, queue: queue, network: network)
  }

  /// The first process: loads the feed online, goes offline, adds two notes, saves everything and ends.
  @MainActor
  static func edit(in folder: URL) async -> [String] {
    let console = DemoEnvironment.current.console
    let backend = NotesBackend(url: folder.appendingPathComponent("server.json"))
    let app = await launch(in: folder, backend: backend, online: true)
    for await state in app.notes.values where state.value != nil { break }
    console.line("online: the feed shows \(app.notes.wrappedValue.value ?? []) from the server")
    for await state in app.news.values where !state.pageIDs.isEmpty { break }
    do {
      _ = try await app.news.fetchNextPage()?.value
    } catch {
      console.line("could not load the next page of news: \(error)", .failure)
    }
    console.line("online: the news feed shows \(describe(app.news.wrappedValue)) from the server")
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
    let before = await backend.contents()
    let app = await launch(in: folder, backend: backend, online: false)
    let restored = app.queue.state.wrappedValue
    let after = await backend.contents()
    let askedServer = after.reads > before.reads
    let newsFetched = (after.newsReads ?? 0) > (before.newsReads ?? 0)
    console.line(
      "started again, offline: the feed shows \(app.notes.wrappedValue.value ?? []) "
        + "(\(askedServer ? "fetched" : "from the cache"), with \(restored.entries.count) queued edits shown again)")
    let news = app.news.wrappedValue
    console.line(
      "started again, offline: the news feed shows \(describe(news)) "
        + "(\(newsFetched ? "fetched" : news.pageIDs.isEmpty ? "nothing restored" : "from the cache"))")
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

  /// The pages of `news` as the scenario prints them: how many, and their items.
  static func describe(_ news: PaginatedState<Int, [String]>) -> String {
    "\(news.pages.count) \(news.pages.count == 1 ? "page" : "pages") \(news.pages.flatMap { $0 })"
  }
}
