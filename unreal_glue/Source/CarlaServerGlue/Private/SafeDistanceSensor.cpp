#include "SafeDistanceSensor.h"

#include "CarlaGlueUtils.h"
#include "CarlaServerActor.h"

#include "Components/BoxComponent.h"

ASafeDistanceSensor::ASafeDistanceSensor()
{
	PrimaryActorTick.bCanEverTick = true;
	PrimaryActorTick.TickGroup = TG_PostPhysics;
	RootComponent = CreateDefaultSubobject<USceneComponent>(TEXT("SensorRoot"));
	Box = CreateDefaultSubobject<UBoxComponent>(TEXT("BoxOverlap"));
	Box->SetupAttachment(RootComponent);
	Box->SetHiddenInGame(true);
	Box->SetCollisionProfileName(FName(TEXT("OverlapAll"))); // overlaps only: lidar rays pass
	Box->SetGenerateOverlapEvents(true);
}

void ASafeDistanceSensor::BeginPlay()
{
	Super::BeginPlay();
	if (ServerActor == nullptr)
	{
		ServerActor = ACarlaServerActor::Find(GetWorld());
	}
	AActor* OwnerActor = GetOwner();
	if (ServerActor == nullptr || OwnerActor == nullptr)
	{
		return;
	}
	SensorId = ServerActor->CreateSensor("sensor.other.safe_distance",
		{{TEXT("safe_distance_front"), FString::SanitizeFloat(SafeDistanceFront)},
			{TEXT("safe_distance_back"), FString::SanitizeFloat(SafeDistanceBack)},
			{TEXT("safe_distance_lateral"), FString::SanitizeFloat(SafeDistanceLateral)}});
	if (SensorId == 0)
	{
		return;
	}
	// The library sizes the box; the engine places it around the owner.
	FVector Origin;
	FVector Extent;
	OwnerActor->GetActorBounds(true, Origin, Extent);
	carla_vector3d Centre = {};
	carla_vector3d BoxExtent = {};
	if (carla_safe_distance_box(ServerActor->GetServer(), SensorId, CarlaGlue::ToMeters(Extent), &Centre, &BoxExtent) != CarlaGlue::Success)
	{
		return;
	}
	const FRotator OwnerRotation = OwnerActor->GetActorRotation();
	Box->SetBoxExtent(CarlaGlue::ToCentimetres(BoxExtent));
	Box->SetWorldLocationAndRotation(Origin + OwnerRotation.RotateVector(CarlaGlue::ToCentimetres(Centre)), OwnerRotation);
}

void ASafeDistanceSensor::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (ServerActor != nullptr)
	{
		ServerActor->DestroySensor(SensorId);
	}
	SensorId = 0;
	Super::EndPlay(EndPlayReason);
}

void ASafeDistanceSensor::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	const CarlaServerPtr Server = ServerActor != nullptr ? ServerActor->GetServer() : nullptr;
	if (Server == nullptr || SensorId == 0)
	{
		return;
	}
	Overlapping.Reset();
	Box->GetOverlappingActors(Overlapping);
	ActorIds.Reset();
	for (AActor* Actor : Overlapping)
	{
		ActorIds.Add(Actor->GetUniqueID());
	}
	// Sent every tick, empty too, so a client sees "nothing near" per frame;
	// the library drops the owner and duplicates.
	const carla_capture_context Context = CarlaGlue::CaptureContext(*this);
	const AActor* OwnerActor = GetOwner();
	carla_sensor_send_actor_ids(Server, SensorId, &Context, OwnerActor != nullptr ? OwnerActor->GetUniqueID() : 0,
		ActorIds.GetData(), static_cast<uint32>(ActorIds.Num()));
}
