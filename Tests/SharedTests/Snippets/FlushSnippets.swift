// The snippets of the flush's documentation: SharedRegistry.flush(), flushOnTermination(), SharedFlushError, and
// the "Nothing lost at exit" sections. Compiled, never run: flushOnTermination() would take the test process's
// signals.
import Foundation
import SharedState

private enum StoringValuesExitSnippet {
  func runTool(stateURL: URL) async {
    SharedRegistry.flushOnTermination()  // SIGTERM and SIGINT write what waits, then exit
    @Shared(.fileStorage(stateURL)) var runs = 0
    $runs.withLock { $0 += 1 }  // written within 0.25 s, or as the program ends, whichever comes first
    do {
      try await SharedRegistry.current.flush()  // written now, and each failure reported
    } catch {
      print("not saved:", error)
    }
  }
}

private enum FlushSnippet {
  func endOfProgram() async {
    do {
      try await SharedRegistry.current.flush()
    } catch {
      print("not everything was saved: \(error)")
    }
  }
}

private enum FlushOnTerminationSnippet {
  func startServer() {
    SharedRegistry.flushOnTermination()
    // ...
  }
}

private enum FlushErrorSnippet {
  func finish() async {
    do {
      try await SharedRegistry.current.flush()
    } catch let error as SharedFlushError {
      for failure in error.failures { print("not saved: \(failure.key): \(failure.error)") }
    } catch {
      print("the flush was cancelled")
    }
  }
}
