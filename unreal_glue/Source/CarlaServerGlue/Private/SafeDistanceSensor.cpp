#include "SafeDistanceSensor.h"

#include "CarlaSemanticTagger.h"
#include "CarlaServerActor.h"

#include "Components/BoxComponent.h"
#include "ProfilingDebugging/CpuProfilerTrace.h"

ASafeDistanceSensor::ASafeDistanceSensor()
{
	RootComponent = CreateDefaultSubobject<USceneComponent>(TEXT("SensorRoot"));
	Box = CreateDefaultSubobject<UBoxComponent>(TEXT("BoxOverlap"));
	Box->SetupAttachment(RootComponent);
	Box->SetHiddenInGame(true);
	Box->SetCollisionProfileName(FName(TEXT("OverlapAll"))); // overlaps only: lidar rays pass
	Box->SetGenerateOverlapEvents(true);
}

AActor* ASafeDistanceSensor::GetGuarded() const
{
	AActor* OwnerActor = GetOwner();
	return OwnerActor != nullptr ? OwnerActor : GetAttachParentActor();
}

void ASafeDistanceSensor::ApplyAttributes(const CarlaGlue::FAttributes& Attributes)
{
	SafeDistanceFront = static_cast<float>(Attributes.Number("safe_distance_front", SafeDistanceFront));
	SafeDistanceBack = static_cast<float>(Attributes.Number("safe_distance_back", SafeDistanceBack));
	SafeDistanceLateral = static_cast<float>(Attributes.Number("safe_distance_lateral", SafeDistanceLateral));
}

void ASafeDistanceSensor::GetSensorAttributes(TMap<FString, FString>& Attributes) const
{
	Attributes.Add(TEXT("safe_distance_front"), FString::SanitizeFloat(SafeDistanceFront));
	Attributes.Add(TEXT("safe_distance_back"), FString::SanitizeFloat(SafeDistanceBack));
	Attributes.Add(TEXT("safe_distance_lateral"), FString::SanitizeFloat(SafeDistanceLateral));
}

bool ASafeDistanceSensor::SizeBox(AActor& Guarded)
{
	// The vehicle's own box, in its own frame: the overlap box turns with it.
	const FBox Local = Guarded.CalculateComponentsBoundingBoxInLocalSpace(false);
	if (!Local.IsValid)
	{
		return false;
	}
	carla_vector3d Centre = {};
	carla_vector3d Extent = {};
	if (carla_safe_distance_box(GetServer(), SensorId, CarlaGlue::ToMeters(Local.GetExtent()), &Centre, &Extent) != CarlaGlue::Success)
	{
		return false;
	}
	Box->SetBoxExtent(CarlaGlue::ToCentimetres(Extent));
	BoxCentre = Local.GetCenter() + CarlaGlue::ToCentimetres(Centre);
	SizedFor = &Guarded;
	return true;
}

void ASafeDistanceSensor::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	AActor* Guarded = GetGuarded();
	if (Guarded == nullptr || !IsWanted() || (SizedFor != Guarded && !SizeBox(*Guarded)))
	{
		return;
	}
	TRACE_CPUPROFILER_EVENT_SCOPE(CarlaSafeDistance);
	const FTransform Vehicle = Guarded->GetActorTransform();
	Box->SetWorldLocationAndRotation(Vehicle.TransformPosition(BoxCentre), Vehicle.Rotator());
	Overlapping.Reset();
	Box->GetOverlappingActors(Overlapping);
	ActorIds.Reset();
	for (AActor* Actor : Overlapping)
	{
		const uint32 Id = ServerActor->GetActorId(Actor);
		if (Actor != Guarded && Id != 0 && (CarlaGlue::IsVehicle(Actor) || CarlaGlue::IsWalker(Actor)))
		{
			ActorIds.Add(Id);
		}
	}
	// Sent every tick, empty too, so a client sees "nothing near" per frame.
	const carla_capture_context Capture = Context();
	carla_sensor_send_actor_ids(GetServer(), SensorId, &Capture, ServerActor->GetActorId(Guarded), ActorIds.GetData(),
		static_cast<uint32>(ActorIds.Num()));
}
