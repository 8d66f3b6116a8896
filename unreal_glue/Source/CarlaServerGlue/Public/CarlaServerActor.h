// Owns the carla_server instance: the 0.8.4 world protocol every Tick, the
// 0.9 streaming port and the sensors' registrations. Place one per level.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "carla/carla_server.h"
#include "CarlaServerActor.generated.h"

UCLASS()
class CARLASERVERGLUE_API ACarlaServerActor : public AActor
{
	GENERATED_BODY()

public:
	ACarlaServerActor();

	/** World port P; the 0.8 agent ports are P+1 and P+2. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 WorldPort = 2000;

	/** 0.9 streaming port: -1 for WorldPort + 3, 0 for any free port. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 StreamingPort = -1;

	/** Network deadline, and how long a synchronous tick waits for a control. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 TimeOutMs = 10000;

	/** Wait for the client's control every tick (and flush rendering first). */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	bool bSynchronousMode = true;

	/** Library log lines kept: 1 error, 2 warning, 3 info, 4 debug. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 LibraryLogLevel = 3;

	/** The player: measured every tick; driven if it implements ICarlaVehicleControl. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	AActor* Player = nullptr;

	/** The server, or nullptr before BeginPlay / if it could not start. */
	CarlaServerPtr GetServer() const { return Server; }

	/** The bound 0.9 streaming port (0 if not listening). */
	int32 GetBoundStreamingPort() const { return BoundStreamingPort; }

	/** Creates a 0.9 sensor (synchronous streams in synchronous mode); 0 on
	 *  failure. Callable before this actor's BeginPlay (makes the server). */
	uint32 CreateSensor(const char* Blueprint, const TMap<FString, FString>& Attributes);

	/** Destroys a sensor created by CreateSensor (its stream ends). */
	void DestroySensor(uint32 SensorId);

	/** The first server actor of World, or nullptr. */
	static ACarlaServerActor* Find(UWorld* World);

	virtual void Tick(float DeltaSeconds) override;

protected:
	virtual void BeginPlay() override;
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;

private:
	/** Makes the server and binds the streaming port, once. */
	bool EnsureServer();
	/** Scene description → episode start → episode ready. */
	bool StartEpisode();
	void WriteMeasurements(float DeltaSeconds);
	void ApplyControl(const carla_control& Control);

	CarlaServerPtr Server = nullptr;
	int32 BoundStreamingPort = 0;
	bool bEpisodeRunning = false;
	FVector LastVelocity = FVector::ZeroVector;
};
