// What every glue sensor shares: its library sensor (created from the
// actor's properties, or adopted when a 0.9 client spawned it), the server
// actor it streams through, its 0.8 identity, and the rule that a sensor
// nobody listens to does no work.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "CarlaGlueUtils.h"
#include "carla/carla_server.h"
#include "CarlaSensor.generated.h"

class ACarlaServerActor;

UCLASS(Abstract)
class CARLASERVERGLUE_API ACarlaSensor : public AActor
{
	GENERATED_BODY()

public:
	ACarlaSensor();

	/** Id of this sensor in the 0.8 scene description (0: 0.9 streams only). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 LegacySensorId = 0;

	/** Its name in the 0.8 scene description (empty: the actor's name). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	FString LegacyName;

	/** The server to stream to (nullptr: the level's first ACarlaServerActor). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	ACarlaServerActor* ServerActor = nullptr;

	/** The library sensor (0 before BeginPlay or if it could not be made). */
	UFUNCTION(BlueprintCallable, Category = "CARLA")
	int32 GetSensorId() const { return static_cast<int32>(SensorId); }

	/** Before BeginPlay: stream into library sensor Id, which a 0.9 client's
	 *  spawn made (the library destroys it; this actor does not). */
	void AdoptSensor(uint32 Id) { SensorId = Id; bOwnsSensor = false; }

	/** Before BeginPlay: take a 0.9 client's blueprint attributes. */
	virtual void ApplyAttributes(const CarlaGlue::FAttributes& /*Attributes*/) {}

	/** CARLA_SERVER_CAMERA, CARLA_SERVER_LIDAR_RAY_CAST, or 0 (not a 0.8 sensor). */
	virtual uint32 GetLegacyType() const { return 0; }

	/** The name announced to 0.8 clients. */
	FString GetLegacyName() const { return LegacyName.IsEmpty() ? GetName() : LegacyName; }

protected:
	virtual void BeginPlay() override;
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;

	/** The library blueprint this actor creates (nullptr: none). */
	virtual const char* GetBlueprintId() const { return nullptr; }
	/** The attributes it creates it with. */
	virtual void GetSensorAttributes(TMap<FString, FString>& /*Attributes*/) const {}
	/** After the sensor exists (created or adopted), on the game thread. */
	virtual void OnSensorReady() {}

	/** The live server, or nullptr. */
	CarlaServerPtr GetServer() const;
	/** Whether this tick's data goes anywhere: a 0.9 subscriber, or the
	 *  running 0.8 episode this sensor is announced in. Game thread. */
	bool IsWanted() const;
	/** When and where this sensor captures now. Game thread. */
	carla_capture_context Context() const { return CarlaGlue::CaptureContext(*this); }

	uint32 SensorId = 0;

private:
	bool bOwnsSensor = true;
};
