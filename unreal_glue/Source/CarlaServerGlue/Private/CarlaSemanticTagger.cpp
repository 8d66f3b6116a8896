#include "CarlaSemanticTagger.h"

#include "Components/PrimitiveComponent.h"
#include "GameFramework/Actor.h"

namespace CarlaGlue
{
	namespace
	{
		struct FLabelInfo
		{
			const TCHAR* Tag; // the actor tag
			uint8 Legacy;     // CARLA 0.8.4
			uint8 Modern;     // CARLA 0.9.16
		};

		// Indexed by ELabel. 0.8.4 has no finer classes: they fold into the
		// nearest 0.8.4 label, as CARLA's own 0.8 tables did.
		const FLabelInfo Labels[] = {
			{TEXT("Carla.None"), 0, 0},
			{TEXT("Carla.Buildings"), 1, 3},
			{TEXT("Carla.Fences"), 2, 5},
			{TEXT("Carla.Other"), 3, 22},
			{TEXT("Carla.Pedestrians"), 4, 12},
			{TEXT("Carla.Poles"), 5, 6},
			{TEXT("Carla.RoadLines"), 6, 24},
			{TEXT("Carla.Roads"), 7, 1},
			{TEXT("Carla.Sidewalks"), 8, 2},
			{TEXT("Carla.Vegetation"), 9, 9},
			{TEXT("Carla.Vehicles"), 10, 14},
			{TEXT("Carla.Walls"), 11, 4},
			{TEXT("Carla.TrafficSigns"), 12, 8},
			{TEXT("Carla.TrafficLights"), 12, 7},
			{TEXT("Carla.Terrain"), 9, 10},
			{TEXT("Carla.Sky"), 0, 11},
			{TEXT("Carla.Riders"), 4, 13},
			{TEXT("Carla.Trucks"), 10, 15},
			{TEXT("Carla.Buses"), 10, 16},
			{TEXT("Carla.Motorcycles"), 10, 18},
			{TEXT("Carla.Bicycles"), 10, 19},
		};
		static_assert(sizeof(Labels) / sizeof(Labels[0]) == static_cast<size_t>(ELabel::Count), "one entry per label");
	}

	ELabel LabelOf(const AActor* Actor)
	{
		if (Actor == nullptr)
		{
			return ELabel::None;
		}
		// The names are made once (an FName is a lookup in the global name
		// table); a function static is thread-safe to initialise.
		struct FTagNames
		{
			FName Names[static_cast<int32>(ELabel::Count)];
			FTagNames()
			{
				for (int32 Index = 0; Index < static_cast<int32>(ELabel::Count); ++Index)
				{
					Names[Index] = FName(Labels[Index].Tag);
				}
			}
		};
		static const FTagNames Tags;
		for (int32 Index = 1; Index < static_cast<int32>(ELabel::Count); ++Index)
		{
			if (Actor->ActorHasTag(Tags.Names[Index]))
			{
				return static_cast<ELabel>(Index);
			}
		}
		return ELabel::None;
	}

	uint8 TagOf(ELabel Label, bool bLegacy)
	{
		const FLabelInfo& Info = Labels[static_cast<int32>(Label) % static_cast<int32>(ELabel::Count)];
		return bLegacy ? Info.Legacy : Info.Modern;
	}

	void TagActor(AActor& Actor, bool bLegacy)
	{
		const ELabel Label = LabelOf(&Actor);
		if (Label == ELabel::None)
		{
			return;
		}
		TArray<UPrimitiveComponent*> Primitives;
		Actor.GetComponents<UPrimitiveComponent>(Primitives);
		for (UPrimitiveComponent* Primitive : Primitives)
		{
			Primitive->SetRenderCustomDepth(true);
			Primitive->SetCustomDepthStencilValue(TagOf(Label, bLegacy));
		}
	}

	bool IsVehicle(const AActor* Actor)
	{
		switch (LabelOf(Actor))
		{
		case ELabel::Vehicles:
		case ELabel::Trucks:
		case ELabel::Buses:
		case ELabel::Motorcycles:
		case ELabel::Bicycles:
			return true;
		default:
			return false;
		}
	}

	bool IsWalker(const AActor* Actor)
	{
		const ELabel Label = LabelOf(Actor);
		return Label == ELabel::Pedestrians || Label == ELabel::Riders;
	}
}
