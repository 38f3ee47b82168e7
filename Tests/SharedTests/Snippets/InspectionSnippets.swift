// The snippets of the inspector (`SharedInspector`, its snapshot, events and actions, and the article "Inspecting
// a running program"), as they show them, so that they compile.
import Foundation
import SharedState

struct InspectionSnippets {
  // InspectedError
  func forcedError(todos: OperationState<[String]>) {
    if let forced = todos.operation.error as? InspectedError { print(forced.message) }
  }

  // InspectedKey
  func listKeys() {
    for key in SharedRegistry.current.inspector.snapshot().keys {
      print(key.id, key.operation?.status.rawValue ?? "-", key.value.text)
    }
  }

  // InspectedMutationRun
  func listMutationRuns() {
    for key in SharedRegistry.current.inspector.snapshot().keys {
      for run in key.mutationRuns ?? [] {
        print(key.name, run.arguments.text, run.status.rawValue, run.error ?? "")
      }
    }
  }

  // InspectedKey.id(kind:description:)
  func queryIdentity() -> String {
    let id = InspectedKey.id(kind: .query, name: QueryKey(["todos"]).description)  // query:["todos"]
    return id
  }

  // InspectedOperation, InspectedQuery, InspectedStore
  func filters() -> Int {
    let failed = SharedRegistry.current.inspector.snapshot().keys.filter { $0.operation?.status == .error }
    let stale = SharedRegistry.current.inspector.snapshot().keys.filter { $0.query?.isStale == true }
    let unsaved = SharedRegistry.current.inspector.snapshot().keys.filter { $0.store?.saveError != nil }
    return failed.count + stale.count + unsaved.count
  }

  // InspectionEvent
  func printEvents() async {
    for await event in SharedRegistry.current.inspector.events() {
      print(event.sequence, event.key, event.kind.name)
    }
  }

  // InspectionEvents
  func printFetchEnds() async {
    let events = SharedRegistry.current.inspector.events(bufferingNewest: 100)
    for await event in events where event.kind.name == "fetchEnded" {
      print(event.key)
    }
  }

  // InspectorAction
  func invalidateTodos() {
    SharedRegistry.current.inspector.perform(.invalidate, on: ["todos"])
  }

  // SharedInspector.perform(_:on:)
  func forceAndRestore() {
    let inspector = SharedRegistry.current.inspector
    inspector.perform(.forceError(message: "The server is down"), on: ["todos"])
    // … look at how the screen shows it …
    inspector.perform(.restore, on: ["todos"])
  }

  // SharedInspector.perform(_:onKeyWithID:)
  func invalidateByIdentity() {
    SharedRegistry.current.inspector.perform(.invalidate, onKeyWithID: #"query:["todos"]"#)
  }

  // SharedInspector.snapshot()
  func printQueries() {
    let snapshot = SharedRegistry.current.inspector.snapshot()
    for key in snapshot.keys where key.kind == .query {
      print(key.name, key.operation?.status.rawValue ?? "-")
    }
  }

  // SharedInspector
  func printFreshness() {
    let inspector = SharedRegistry.current.inspector
    for key in inspector.snapshot().keys where key.kind == .query {
      print(key.name, key.operation?.status.rawValue ?? "-", key.query?.isStale == true ? "stale" : "fresh")
    }
  }

  // SharedInspector.events(bufferingNewest:)
  func followEvents() {
    let events = SharedRegistry.current.inspector.events()
    Task {
      for await event in events { print(event.key, event.kind.name) }
    }
  }

  // SharedSnapshot
  func loadingKeys() -> [String] {
    let snapshot = SharedRegistry.current.inspector.snapshot()
    let loading = snapshot.keys.filter { $0.operation?.isFetching == true }.map(\.id)
    return loading
  }

  // ValueSummary
  func summarize() {
    let summary = ValueSummary(of: ["milk", "eggs"])
    print(summary.text)  // ["milk","eggs"]
  }

  // SharedRegistry.inspector
  func keyIdentities() -> [String] {
    let keys = SharedRegistry.current.inspector.snapshot().keys.map(\.id)
    return keys
  }

  // The article "Inspecting a running program"
  func printKeys() {
    let snapshot = SharedRegistry.current.inspector.snapshot()
    for key in snapshot.keys {
      let status = key.operation?.status.rawValue ?? "-"
      print(key.id, status, key.holders, key.value.text)
    }
  }

  func explainStaleness(of key: QueryKey) {
    let id = InspectedKey.id(kind: .query, name: key.description)
    guard let query = SharedRegistry.current.inspector.snapshot()[id: id]?.query else { return }
    if query.isStale {
      print("stale: the next holder or trigger refetches it")
    } else if let staleAt = query.staleAt {
      print("fresh until", staleAt)
    }
  }

  func logFetches() -> Task<Void, Never> {
    let events = SharedRegistry.current.inspector.events(bufferingNewest: 500)
    return Task {
      for await event in events {
        if case .fetchEnded(let duration, .failure(let error)) = event.kind {
          print(event.key, "failed after", duration, error)
        }
      }
    }
  }

  func showTheErrorScreen() {
    let inspector = SharedRegistry.current.inspector
    inspector.perform(.forceError(message: "The server is down"), on: ["todos"])
  }

  func putItBack() {
    SharedRegistry.current.inspector.perform(.restore, on: ["todos"])
  }

  // README: Inspecting a running program
  func watchQueries() -> Task<Void, Never> {
    let inspector = SharedRegistry.current.inspector
    for key in inspector.snapshot().keys where key.kind == .query {
      print(key.name, key.operation?.status.rawValue ?? "-", key.query?.isStale == true ? "stale" : "fresh")
    }
    let events = inspector.events()
    return Task {
      for await event in events { print(event.sequence, event.key, event.kind.name) }
    }
  }
}
