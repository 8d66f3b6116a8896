// Owns the carla_server instance. Every Tick it serves the 0.8.4 world
// protocol (the episodes the client's CarlaSettings.ini asks for, with the
// cameras and lidars it lists) and the 0.9.16 clients' requests (sensors
// spawned and destroyed, controls, transforms, settings, ticks), and hands
// the library the episode state of the level's actors. Place one per level.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "carla/carla_server.h"
#include "CarlaServerActor.generated.h"

class ACarlaSensor;
class UMaterialInterface;
enum class ECarlaCameraOutput : uint8;

UCLASS()
class CARLASERVERGLUE_API ACarlaServerActor : public AActor
{
	GENERATED_BODY()

public:
	ACarlaServerActor();

	/** World port P; the 0.8 agent ports are P+1 and P+2. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 WorldPort = 2000;

	/** 0.9 streaming port: -1 for WorldPort + 3, 0 for any free port. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 StreamingPort = -1;

	/** 0.9.16 RPC port: -1 off, 0 any free port; WorldPort shares it with
	 *  0.8 clients (the library tells them apart by their first bytes). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 RpcPort = -1;

	/** Network deadline, and how long a synchronous tick waits for a client. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 TimeOutMs = 10000;

	/** The server's SynchronousMode; each 0.8 client's settings override it. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	bool bSynchronousMode = true;

	/** Wait in BeginPlay (up to TimeOutMs) for the first 0.8 client, as the
	 *  0.8.4 game mode did; otherwise episodes start when a client asks. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	bool bWaitForLegacyClient = true;

	/** Messages a 0.9 subscriber may fall behind before its newer ones are
	 *  dropped (sends never wait on a subscriber). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 StreamQueueDepth = 16;

	/** Library log lines kept: 1 error, 2 warning, 3 info, 4 debug. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 LibraryLogLevel = 3;

	/** Stencil values in CARLA 0.8.4's numbering instead of 0.9.16's. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	bool bLegacySemanticTags = false;

	/** The player: measured every tick; driven if it implements ICarlaVehicleControl. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	AActor* Player = nullptr;

	/** Post-process materials of depth and semantic-segmentation cameras
	 *  (CARLA's PhysicLensDepth and GTMaterial, or the project's own). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	UMaterialInterface* DepthMaterial = nullptr;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	UMaterialInterface* SemanticSegmentationMaterial = nullptr;

	/** The server, or nullptr before BeginPlay / if it could not start. */
	CarlaServerPtr GetServer() const { return Server; }

	/** The bound 0.9 streaming and RPC ports (0 if not listening). */
	int32 GetBoundStreamingPort() const { return BoundStreamingPort; }
	int32 GetBoundRpcPort() const { return BoundRpcPort; }

	/** Whether this frame is synchronous (a 0.8 episode in synchronous
	 *  mode, or a 0.9 client asked for it): its images go out before it ends. */
	bool IsFrameSynchronous() const;

	/** Whether a 0.8 episode is running (its sensors must capture). */
	bool IsLegacyEpisodeRunning() const { return bEpisodeRunning; }

	/** The id 0.9 clients know Actor by (0: none). */
	uint32 GetActorId(const AActor* Actor) const;

	/** The material for a camera output (nullptr for SceneFinal). */
	UMaterialInterface* GetPostProcessMaterial(ECarlaCameraOutput Output) const;

	/** Creates a library sensor (queued 0.9 delivery); 0 on failure.
	 *  Callable before this actor's BeginPlay (it makes the server). */
	uint32 CreateSensor(const char* Blueprint, const TMap<FString, FString>& Attributes);

	/** Destroys a sensor made by CreateSensor (its stream ends). */
	void DestroySensor(uint32 SensorId);

	/** The first server actor of World, or nullptr. */
	static ACarlaServerActor* Find(UWorld* World);

	virtual void Tick(float DeltaSeconds) override;

protected:
	virtual void BeginPlay() override;
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;

	/** The player's collisions, for the 0.8 measurements. */
	UFUNCTION()
	void OnPlayerHit(AActor* SelfActor, AActor* OtherActor, FVector NormalImpulse, const FHitResult& Hit);

	/** A known actor destroyed by game code: clients stop listing it. */
	UFUNCTION()
	void OnKnownActorDestroyed(AActor* DestroyedActor);

private:
	/** An actor 0.9 clients know: the level's (registered by the glue) or a
	 *  sensor a client spawned. Weak: garbage collection frees a destroyed
	 *  actor whatever this table holds, and Get() is null from then on. */
	struct FKnownActor
	{
		TWeakObjectPtr<AActor> Actor;
		/** The address, as a key only (never dereferenced). */
		const AActor* Key = nullptr;
		uint32 Id = 0;
		uint32 Kind = 0; // CARLA_ACTOR_*
		bool bSpawnedByClient = false;
		FVector LastVelocity = FVector::ZeroVector;
		carla_vehicle_control Control = {};
	};

	// CarlaServerActor.cpp: lifetime and the per-frame order.
	bool EnsureServer();
	/** r.CustomDepth=3 for the semantic camera's stencil (set and logged). */
	void RequireCustomDepthStencil();
	void ApplyControl(AActor* Vehicle, float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse);
	FKnownActor* FindKnown(const AActor* Actor);

	// CarlaServerEpisode.cpp: the 0.8 world protocol.
	void ServeLegacy(float DeltaSeconds, bool bRpcDrivesTicks);
	bool StartEpisode(const carla_request_new_episode& Request);
	bool ApplyLegacySettings(const carla_request_new_episode& Request);
	void SpawnEpisodeSensors();
	void DestroyEpisodeSensors();
	void WriteMeasurements(float DeltaSeconds);

	// CarlaServerRpc.cpp: the 0.9.16 clients.
	void ListenRpc();
	void RegisterLevelActors();
	/** Tags Actor and, if a vehicle or walker, gives it an id (clients see it). */
	void RegisterActor(AActor* Actor);
	/** World's spawn handler: actors spawned after BeginPlay. */
	void OnActorSpawned(AActor* Actor);
	/** Drops Known[Index] (and tells the library). */
	void ForgetKnown(int32 Index);
	/** Forgets every known actor (destroying the clients' sensors if asked). */
	void ResetKnown(bool bDestroyClientSensors);
	/** Applies a client's fixed step to the engine's physics; an error text
	 *  if the engine cannot simulate it. */
	const char* ApplyFixedStep(const carla_episode_settings& Settings);
	void HandleRpcRequests(uint32 WaitMs);
	void HandleRpcRequest(const carla_rpc_request& Request);
	const char* SpawnSensorActor(const carla_rpc_request& Request);
	void ServeRpcAfterFrame(float DeltaSeconds);
	void SendEpisodeState(float DeltaSeconds);
	bool IsRpcSynchronous() const;

	CarlaServerPtr Server = nullptr;
	CarlaSettingsPtr ServerSettings = nullptr;
	CarlaSettingsPtr EpisodeSettings = nullptr;
	int32 BoundStreamingPort = 0;
	int32 BoundRpcPort = 0;
	bool bEpisodeRunning = false;
	/** A carla_* call was made (the library is loaded): EndPlay frees. */
	bool bLibraryUsed = false;
	bool bLibraryMissingLogged = false;
	bool bEpisodeSynchronous = true;
	bool bSendAgents = false;
	FVector LastVelocity = FVector::ZeroVector;
	float CollisionVehicles = 0.0f;
	float CollisionPedestrians = 0.0f;
	float CollisionOther = 0.0f;

	UPROPERTY()
	TArray<ACarlaSensor*> EpisodeSensors;

	TArray<FKnownActor> Known;
	/** Known's ids by actor (the lidar asks once per hit). */
	TMap<const AActor*, uint32> IdByActor;
	uint32 NextLevelActorId = 10000;
	FDelegateHandle ActorSpawnedHandle;
	TArray<uint64> PendingTicks; // 0.9 ticks answered after the next frame
	bool bRpcSynchronous = false;
	TArray<carla_agent> Agents;         // reused every frame
	TArray<carla_actor_state> States;   // reused every frame
};
