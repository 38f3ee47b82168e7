extension QueryStore {
  /// The online status that the fetches of this store's queries and the runs of its registry's mutations follow:
  /// while it says the device is offline, work waits as its ``NetworkMode`` says; `nil` (the default): the device
  /// counts as online, and nothing waits.
  ///
  /// ```swift
  /// let network = ManualOnlineStatus(isOnline: false)
  /// SharedRegistry.current.queries.onlineStatus = network
  /// // Fetches and mutations wait now, paused; they go on when the device is online:
  /// network.setOnline(true)
  /// ```
  ///
  /// Give it the source the app already has: `NetworkPathOnlineStatus()` on Apple platforms, a
  /// ``ManualOnlineStatus`` that the program (or a test) drives, or a type of your own. The same source can also
  /// refetch the held queries when the device comes back online (``refetch(onReconnect:matching:)``): one source,
  /// both jobs.
  ///
  /// Work asks the status as it starts: a query's fetch before its first attempt and before each retry, a
  /// mutation's run the same way. Work that must wait shows ``OperationTracking/isPaused``, and when the status says
  /// online again, the paused work goes on in the order it paused. Setting another source (or `nil`) lets the work
  /// that waits go on if it says online. A change reported by the library's own sources reaches the store at once,
  /// in the thread that made it; a source of your own is followed through its `onlineStatuses()`.
  ///
  /// Fetches and runs that started before the store had a source ignore the network until they end.
  public var onlineStatus: (any OnlineStatusSource)? {
    get { services.network.source }
    set { services.network.follow(newValue) }
  }

  /// The network mode of every query fetch and mutation run whose options name none; ``NetworkMode/online`` by
  /// default.
  ///
  /// ```swift
  /// SharedRegistry.current.queries.networkMode = .offlineFirst
  /// ```
  ///
  /// A query names its own with ``QueryOptions/networkMode``, a mutation with ``OperationOptions/networkMode``. It
  /// matters only while the store has an ``onlineStatus``. A change applies to fetches and runs that start after it.
  public var networkMode: NetworkMode {
    get { services.network.defaultMode }
    set { services.network.defaultMode = newValue }
  }

  /// Whether the store counts the device as online, as its ``onlineStatus`` last said; `true` with no source.
  ///
  /// ```swift
  /// if !SharedRegistry.current.queries.isOnline { showOfflineBanner() }
  /// ```
  public var isOnline: Bool {
    services.network.isOnline
  }
}
