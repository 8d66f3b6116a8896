#include "CarlaSensor.h"

#include "CarlaServerActor.h"
#include "CarlaServerGlue.h"

ACarlaSensor::ACarlaSensor()
{
	PrimaryActorTick.bCanEverTick = true;
	// After vehicles moved (pre-physics) and physics ran; before the server
	// actor (post-update work) writes the frame's measurements.
	PrimaryActorTick.TickGroup = TG_PostPhysics;
}

void ACarlaSensor::BeginPlay()
{
	Super::BeginPlay();
	if (ServerActor == nullptr)
	{
		ServerActor = ACarlaServerActor::Find(GetWorld());
	}
	if (ServerActor == nullptr)
	{
		UE_LOG(LogCarlaServerGlue, Warning, TEXT("%s: no ACarlaServerActor in the level; the sensor is idle"), *GetName());
		return;
	}
	if (SensorId == 0)
	{
		const char* Blueprint = GetBlueprintId();
		TMap<FString, FString> Attributes;
		GetSensorAttributes(Attributes);
		SensorId = Blueprint != nullptr ? ServerActor->CreateSensor(Blueprint, Attributes) : 0;
		bOwnsSensor = true;
	}
	if (SensorId == 0)
	{
		return;
	}
	if (LegacySensorId != 0)
	{
		carla_sensor_mirror_to_legacy(ServerActor->GetServer(), SensorId, static_cast<uint32>(LegacySensorId));
	}
	OnSensorReady();
}

void ACarlaSensor::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (ServerActor != nullptr && bOwnsSensor)
	{
		ServerActor->DestroySensor(SensorId);
	}
	SensorId = 0;
	Super::EndPlay(EndPlayReason);
}

CarlaServerPtr ACarlaSensor::GetServer() const
{
	return ServerActor != nullptr && SensorId != 0 ? ServerActor->GetServer() : nullptr;
}

bool ACarlaSensor::IsWanted() const
{
	const CarlaServerPtr Server = GetServer();
	if (Server == nullptr)
	{
		return false;
	}
	if (LegacySensorId != 0 && ServerActor->IsLegacyEpisodeRunning())
	{
		return true;
	}
	uint32 Subscribers = 0;
	return carla_sensor_subscriber_count(Server, SensorId, &Subscribers) == CarlaGlue::Success && Subscribers > 0;
}
