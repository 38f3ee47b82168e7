// The snippets of the integration's DocC catalog, and the Hummingbird snippet of the framework's article "Queries on a
// server", as they show them, so that they compile.
import Hummingbird
import Metrics
import SharedObservability
import SharedState
import Tracing

enum ObservabilityArticleSnippets {
  static func startTelemetry() {
    StoreTelemetry.attach(to: .current, keyDepth: 1)
  }

  static func attachTelemetry(metrics: any MetricsFactory, tracer: any Tracer) {
    StoreTelemetry.attach(to: .current, keyDepth: 2, metrics: metrics, tracer: tracer)
  }
}

enum QueriesOnAServerSnippets {
  struct User: Sendable {
    var name: String
  }

  static func route(
    _ router: Router<BasicRequestContext>,
    store: QueryStore,
    userQuery: @escaping @Sendable (Int) -> Query<OperationState<User>>
  ) {
    router.get("/users/:id") { request, context -> String in
      let id = try context.parameters.require("id", as: Int.self)
      return try await request.body.consumeWithCancellationOnInboundClose { _ in
        try await store.fetch(userQuery(id)).name
      }
    }
  }
}
